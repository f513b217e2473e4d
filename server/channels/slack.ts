import type { z } from 'zod';

import { slackConfig } from '../../contract/channel-kinds/slack';
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type Mentions, type OutboundMessage } from './channel-adapter';
import { rateLimitKey } from './channel-fields';
import { DeliveryError } from './delivery-error';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { assertHttpOkWith, joinLines, limitExceeded } from './platform-reply';
import { escapeSlack, markdownToMrkdwn, slackUrl } from './slack-mrkdwn';

/** Slack truncates `text` beyond 40,000 characters; refusing beats a silent cut. */
export const SLACK_MAX_CHARS = 40_000;
/** About one message a second per webhook, with short bursts (then 429 + Retry-After). */
export const SLACK_RATE = { max: 1, perMs: 1_000 } as const;

/** Member ids (U…/W…); anything else (a DingTalk id, a phone number) is not a Slack user. */
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const slackConfigSchema = slackConfig.schema;
export type SlackConfig = z.infer<typeof slackConfigSchema>;

export interface SlackBody {
  text: string;
  /** false for text instances: `*` and `_` in plain text must not turn into formatting. */
  mrkdwn?: false;
}

/**
 * The mentions Slack can honour: Slack member ids as `<@U…>`, everyone as `<!channel>`. Ids
 * of other platforms (mentions are shared by every instance of a task) are left out.
 */
export function slackMentions(mentions: Mentions): string {
  const ids = [
    ...new Set(mentions.userIds.map((id) => id.trim()).filter((id) => SLACK_USER_ID.test(id))),
  ];
  return [...ids.map((id) => `<@${id}>`), mentions.all ? '<!channel>' : '']
    .filter(Boolean)
    .join(' ');
}

/** The incoming-webhook body: mrkdwn for Markdown instances, escaped plain text otherwise. */
export function buildSlackBody(
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url' | 'mentions'> &
    Partial<Pick<OutboundMessage, 'priority'>>,
  config: Pick<SlackConfig, 'mentionAtUrgent'> = {},
): SlackBody {
  const here = config.mentionAtUrgent === true && message.priority === 5 ? '<!here>' : '';
  const title = message.title.trim();
  const url = message.url ? `<${slackUrl(message.url)}>` : '';
  const mentions = slackMentions(message.mentions);
  if (message.contentType === 'markdown') {
    return {
      text: joinLines(
        here,
        title ? `*${escapeSlack(title)}*` : '',
        markdownToMrkdwn(message.content),
        url,
        mentions,
      ),
    };
  }
  return {
    text: joinLines(here, escapeSlack(title), escapeSlack(message.content), url, mentions),
    mrkdwn: false,
  };
}

const HINTS: Record<string, string> = {
  no_service: 'the webhook was removed; create a new one',
  invalid_token: 'the webhook URL is no longer valid; create a new one',
  channel_not_found: 'the webhook’s channel no longer exists',
  channel_is_archived: 'the webhook’s channel is archived',
  action_prohibited: 'a workspace admin restricted posting to this channel',
};

/** Success is HTTP 200 with the plain body `ok`; errors are plain strings like `no_service`. */
export function checkSlackReply(res: HttpResponse): void {
  const reason = res.text.trim().slice(0, 200) || undefined;
  assertHttpOkWith(res, 'Slack', { reason, hint: reason ? HINTS[reason] : undefined });
  if (res.text.trim() !== 'ok')
    throw DeliveryError.permanent(
      'Slack answered without "ok"; is webhookUrl a Slack incoming webhook?',
      {
        reply: replyOf(res),
      },
    );
}

/** Slack incoming webhook. */
export function createSlackAdapter() {
  return defineAdapter({
    type: 'slack',
    label: 'Slack incoming webhook',
    ...configOf(slackConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    rateLimit: (config) => ({ key: rateLimitKey('slack', config.webhookUrl), ...SLACK_RATE }),
    async send(config, given) {
      // Files reach the chat as links at the end of the content (mrkdwn has no images: a link).
      const message = withAttachmentLinks(given, { images: false });
      const body = buildSlackBody(message, config);
      if (body.text.length > SLACK_MAX_CHARS)
        throw limitExceeded('Slack', body.text.length, SLACK_MAX_CHARS, 'characters');
      const res = await httpRequest({
        url: config.webhookUrl,
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify(body),
        options: config,
      });
      checkSlackReply(res);
      return { reply: replyOf(res) };
    },
  });
}
