import type { z } from 'zod';

import { weComConfig } from '../../contract/channel-kinds/wecom';
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { rateLimitKey } from './channel-fields';
import { DeliveryError } from './delivery-error';
import { throwOnErrcode, type ErrcodeRules } from './errcode';
import { httpRequest, replyOf } from './http-client';

/** WeCom counts UTF-8 bytes of the `content` field, not of the whole body. */
export const WECOM_MAX_CONTENT_BYTES = { text: 2048, markdown: 4096 } as const;
/** 20 messages a minute per robot. */
export const WECOM_RATE = { max: 20, perMs: 60_000 } as const;

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const weComConfigSchema = weComConfig.schema;
export type WeComConfig = z.infer<typeof weComConfigSchema>;

/** WeCom's JSON body for one message. */
export type WeComBody =
  | {
      msgtype: 'text';
      text: { content: string; mentioned_list?: string[]; mentioned_mobile_list?: string[] };
    }
  | { msgtype: 'markdown'; markdown: { content: string } };

/**
 * Builds the robot body. Text mentions go in `mentioned_list`/`mentioned_mobile_list` inside
 * the `text` object (not at the top level, where WeCom ignores them); "@all" mentions everyone.
 * Markdown (v1) only knows inline `<@userid>`: mobiles and "everyone" cannot be expressed
 * there, so an instance that must mention by mobile or everyone should use text.
 * WeCom has no title field: the title leads the content (as a heading in markdown).
 */
export function buildWeComBody(
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'mentions'>,
): WeComBody {
  const userIds = unique(message.mentions.userIds);
  const mobiles = unique(message.mentions.mobiles);
  const title = message.title.replace(/\s+/g, ' ').trim();

  if (message.contentType === 'markdown') {
    const inline = userIds
      .filter((u) => !message.content.includes(`<@${u}>`))
      .map((u) => `<@${u}>`)
      .join(' ');
    const content = [title ? `### ${title}` : '', message.content, inline]
      .filter(Boolean)
      .join('\n\n');
    return { msgtype: 'markdown', markdown: { content } };
  }
  const text: Extract<WeComBody, { msgtype: 'text' }>['text'] = {
    content: [title, message.content].filter(Boolean).join('\n'),
  };
  const mentionedList = message.mentions.all ? [...userIds, '@all'] : userIds;
  if (mentionedList.length) text.mentioned_list = mentionedList;
  if (mobiles.length) text.mentioned_mobile_list = mobiles;
  return { msgtype: 'text', text };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter(Boolean))];
}

/**
 * Refuses content over WeCom's byte limit with a permanent error rather than splitting it:
 * WeCom has no idempotency key, so a split message whose second part failed would resend the
 * first part on every retry, and each part spends one of the robot's 20 messages a minute.
 */
export function assertWeComSize(body: WeComBody): void {
  const kind = body.msgtype;
  const content = kind === 'text' ? body.text.content : body.markdown.content;
  const bytes = Buffer.byteLength(content, 'utf8');
  const max = WECOM_MAX_CONTENT_BYTES[kind];
  if (bytes > max) {
    throw DeliveryError.permanent(
      `message too large for WeCom: ${kind} content is ${bytes} bytes (title included), WeCom accepts at most ${max}` +
        (kind === 'text' ? '; a markdown instance allows 4096' : ''),
    );
  }
}

export const WECOM_ERRCODES: ErrcodeRules = {
  // -1 is "system busy"; 45009 is the frequency limit, which resets within a minute.
  transient: [-1, 45009],
  retryAfterMs: { 45009: 60_000 },
  hints: {
    93000: 'the key in webhookUrl is not a robot; copy the webhook URL again',
    40058: 'a field is missing, invalid or too long; errmsg names it',
    40008: 'WeCom does not accept this message type',
    45009: 'more than 20 messages a minute to this robot',
  },
};

/** WeCom group robot ("群机器人"), text or markdown, with @mentions. */
export function createWeComAdapter() {
  return defineAdapter({
    type: 'wecom',
    label: 'WeCom group robot',
    ...configOf(weComConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    rateLimit(config) {
      return { key: rateLimitKey('wecom', config.webhookUrl), ...WECOM_RATE };
    },
    async send(config, given) {
      // Files reach the chat as links at the end of the content (markdown (v1) has no images: a link).
      const message = withAttachmentLinks(given, { images: false });
      const body = buildWeComBody(message);
      assertWeComSize(body);
      const res = await httpRequest({
        url: config.webhookUrl,
        headers: { 'Content-Type': 'application/json;charset=utf-8' },
        body: JSON.stringify(body),
        options: config,
      });
      throwOnErrcode(res, 'WeCom', WECOM_ERRCODES);
      return { reply: replyOf(res) };
    },
  });
}
