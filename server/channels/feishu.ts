import { createHmac } from 'node:crypto';

import type { z } from 'zod';

import { feishuConfig } from '../../contract/channel-kinds/feishu';
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { rateLimitKey } from './channel-fields';
import { throwOnErrcode, type ErrcodeRules } from './errcode';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { jsonObjectOf, joinLines, limitExceeded, utf8Bytes } from './platform-reply';

/** Feishu refuses request bodies above 20 KB (code 9499); counted as bytes of the JSON. */
export const FEISHU_MAX_BODY_BYTES = 20_000;
/**
 * Feishu allows 5 requests a second and 100 a minute per bot. Five per three seconds in a
 * sliding window keeps both: never more than 5 in any second, at most 100 in any minute.
 */
export const FEISHU_RATE = { max: 5, perMs: 3_000 } as const;

/** Custom bots only notify open_ids (ou_…); any other id would render as dead text. */
const OPEN_ID = /^ou_[A-Za-z0-9_-]+$/;

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const feishuConfigSchema = feishuConfig.schema;
export type FeishuConfig = z.infer<typeof feishuConfigSchema>;

export interface FeishuTextBody {
  msg_type: 'text';
  content: { text: string };
}

export interface FeishuCardBody {
  msg_type: 'interactive';
  card: {
    config: { wide_screen_mode: true };
    header?: { title: { tag: 'plain_text'; content: string }; template: string };
    elements: Array<{ tag: 'markdown'; content: string }>;
  };
}

export type FeishuBody = (FeishuTextBody | FeishuCardBody) & { timestamp?: string; sign?: string };

/**
 * The "signature verification" sign: HMAC-SHA256 keyed by `timestamp + "\n" + secret` over an
 * empty message, Base64, not URL-encoded (the reverse of DingTalk's key and data).
 */
export function feishuSign(secret: string, timestampSeconds: string): string {
  return createHmac('sha256', `${timestampSeconds}\n${secret}`).update('').digest('base64');
}

/** The open_ids of a message's mentions that Feishu can notify, without repeats. */
export function feishuOpenIds(userIds: readonly string[]): string[] {
  return [...new Set(userIds.map((id) => id.trim()).filter((id) => OPEN_ID.test(id)))];
}

/**
 * Builds the bot body. Text stays a text message; Markdown becomes an interactive card with a
 * `markdown` element, because `post` has no Markdown at all (only text/a/at/img tags) while
 * the card's markdown element renders bold, italic, strike, links, lists, code and quotes.
 * The title is the card header, or the first line of a text message.
 */
export function buildFeishuBody(
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url' | 'mentions'>,
): FeishuTextBody | FeishuCardBody {
  const openIds = feishuOpenIds(message.mentions.userIds);
  const title = message.title.replace(/\s+/g, ' ').trim();

  if (message.contentType === 'markdown') {
    const ats = [
      ...openIds.map((id) => `<at id=${id}></at>`),
      message.mentions.all ? '<at id=all></at>' : '',
    ]
      .filter(Boolean)
      .join(' ');
    const link = message.url ? `[${message.url}](${message.url})` : '';
    const card: FeishuCardBody['card'] = {
      config: { wide_screen_mode: true },
      elements: [{ tag: 'markdown', content: joinLines(message.content, link, ats) }],
    };
    if (title) card.header = { title: { tag: 'plain_text', content: title }, template: 'blue' };
    return { msg_type: 'interactive', card };
  }

  const ats = [
    ...openIds.map((id) => `<at user_id="${id}"></at>`),
    message.mentions.all ? '<at user_id="all">所有人</at>' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    msg_type: 'text',
    content: { text: joinLines(title, message.content, message.url, ats) },
  };
}

/** Adds `timestamp` (seconds) and `sign` next to `msg_type` when the bot has a secret. */
export function signFeishuBody(
  body: FeishuTextBody | FeishuCardBody,
  secret: string | undefined,
  nowMs: number,
): FeishuBody {
  if (!secret) return body;
  const timestamp = String(Math.floor(nowMs / 1000));
  return { timestamp, sign: feishuSign(secret, timestamp), ...body };
}

export const FEISHU_CODES: ErrcodeRules = {
  transient: [11232],
  hints: {
    9499: 'Feishu called the request malformed or too large',
    19021: 'the signing secret is wrong or this computer’s clock is off by more than an hour',
    19022: 'this machine’s IP address is not on the bot’s allowlist',
    19024: 'the message lacks the keyword the bot’s security settings require',
    11232: 'the bot is over its rate limit (5 a second, 100 a minute)',
  },
};

/**
 * Feishu answers `{code, msg}` (with legacy `StatusCode`/`StatusMessage` duplicates) where
 * DingTalk answers `{errcode, errmsg}`; the classification is the same, so it is shared.
 */
export function checkFeishuReply(res: HttpResponse): void {
  const body = jsonObjectOf(res);
  const code = body?.code ?? body?.StatusCode;
  const msg = body?.msg ?? body?.StatusMessage;
  throwOnErrcode(
    body ? { ...res, json: { ...body, errcode: code, errmsg: msg } } : res,
    'Feishu',
    FEISHU_CODES,
  );
}

/** Feishu / Lark custom group bot (自定义机器人): text or Markdown card, @mentions, signing. */
export function createFeishuAdapter() {
  return defineAdapter({
    type: 'feishu',
    label: 'Feishu / Lark bot',
    ...configOf(feishuConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    rateLimit: (config) => ({ key: rateLimitKey('feishu', config.webhookUrl), ...FEISHU_RATE }),
    async send(config, given, runtime) {
      // Files reach the chat as links at the end of the content (card Markdown shows only uploaded image keys: a link).
      const message = withAttachmentLinks(given, { images: false });
      const body = signFeishuBody(buildFeishuBody(message), config.secret, runtime.clock.now());
      const json = JSON.stringify(body);
      const size = utf8Bytes(json);
      if (size > FEISHU_MAX_BODY_BYTES)
        throw limitExceeded('Feishu', size, FEISHU_MAX_BODY_BYTES, 'bytes');
      const res = await httpRequest({
        url: config.webhookUrl,
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: json,
        options: config,
      });
      checkFeishuReply(res);
      return { reply: replyOf(res) };
    },
  });
}
