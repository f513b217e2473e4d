import { createHmac } from 'node:crypto';

import type { z } from 'zod';

import { dingTalkConfig } from '../../contract/channel-kinds/dingtalk';
import { plainTextOf } from '../domain/plain-text';
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { rateLimitKey } from './channel-fields';
import { deliveryDedupId } from './dedup-id';
import { DeliveryError } from './delivery-error';
import { throwOnErrcode, type ErrcodeRules } from './errcode';
import { httpRequest, replyOf } from './http-client';

/** DingTalk refuses request bodies above this many bytes (its own error text says 20000). */
export const DINGTALK_MAX_BODY_BYTES = 20_000;
/** 20 messages a minute per robot; going over earns a 10-minute throttle (errcode 130101). */
export const DINGTALK_RATE = { max: 20, perMs: 60_000 } as const;
const THROTTLE_MS = 10 * 60_000;

const SIGN_PARAMS = ['timestamp', 'sign'] as const;

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const dingTalkConfigSchema = dingTalkConfig.schema;
export type DingTalkConfig = z.infer<typeof dingTalkConfigSchema>;

/** DingTalk's JSON body for one message. */
export interface DingTalkBody {
  msgtype: 'text' | 'markdown';
  text?: { content: string };
  markdown?: { title: string; text: string };
  at: { atMobiles: string[]; atUserIds: string[]; isAtAll: boolean };
  /** Idempotency key: DingTalk drops a resend with the same value. */
  msgUuid: string;
}

/**
 * Builds the robot body. Mentions go in `at` and also as `@mobile`/`@userId` in the text,
 * because DingTalk only fires a mention whose handle appears in the markdown text. The title
 * becomes the markdown preview title and is repeated as a heading so it is visible in the chat.
 */
export function buildDingTalkBody(
  message: Pick<OutboundMessage, 'deliveryId' | 'title' | 'content' | 'contentType' | 'mentions'>,
): DingTalkBody {
  const atMobiles = unique(message.mentions.mobiles);
  const atUserIds = unique(message.mentions.userIds);
  const at = { atMobiles, atUserIds, isAtAll: message.mentions.all };
  const msgUuid = deliveryDedupId(message);
  const title = oneLine(message.title);
  const handles = [...atMobiles, ...atUserIds]
    .filter((h) => !message.content.includes(`@${h}`))
    .map((h) => `@${h}`)
    .join(' ');

  if (message.contentType === 'markdown') {
    const parts = [title ? `### ${title}` : '', message.content, handles].filter(Boolean);
    return {
      msgtype: 'markdown',
      markdown: { title: title || previewOf(message.content), text: parts.join('\n\n') },
      at,
      msgUuid,
    };
  }
  const parts = [title, message.content, handles].filter(Boolean);
  return { msgtype: 'text', text: { content: parts.join('\n') }, at, msgUuid };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter(Boolean))];
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * DingTalk requires a markdown title; without one, the start of the body as its reader sees it
 * stands in (rendered, so `db-2` stays `db-2` and no `#` or `**` shows in the chat list).
 */
function previewOf(content: string): string {
  const first = Array.from(plainTextOf(content, 'markdown')).slice(0, 64).join('');
  return first || 'Herald';
}

/** The "加签" signature: base64 of HMAC-SHA256(key = secret, data = timestamp + "\n" + secret). */
export function dingTalkSign(secret: string, timestamp: string): string {
  return createHmac('sha256', secret).update(`${timestamp}\n${secret}`).digest('base64');
}

/** The webhook URL without any timestamp/sign a user pasted along with it. */
export function stripSignParams(webhookUrl: string): string {
  const url = new URL(webhookUrl);
  if (!SIGN_PARAMS.some((p) => url.searchParams.has(p))) return webhookUrl;
  for (const p of SIGN_PARAMS) url.searchParams.delete(p);
  return url.toString();
}

/**
 * The URL to post to: with a secret, `&timestamp=<ms>&sign=<base64>` is appended, the sign
 * URL-encoded exactly once (double encoding is the classic "sign not match").
 */
export function dingTalkRequestUrl(
  webhookUrl: string,
  secret: string | undefined,
  nowMs: number,
): string {
  const base = stripSignParams(webhookUrl);
  if (!secret) return base;
  const timestamp = String(Math.trunc(nowMs));
  const sign = encodeURIComponent(dingTalkSign(secret, timestamp));
  return `${base}${base.includes('?') ? '&' : '?'}timestamp=${timestamp}&sign=${sign}`;
}

export const DINGTALK_ERRCODES: ErrcodeRules = {
  // -1 is "system busy"; 130101 is the per-robot rate limit with its 10-minute throttle.
  transient: [-1, 130101],
  retryAfterMs: { 130101: THROTTLE_MS },
  hints: {
    300001: 'the access_token in webhookUrl is not a robot; copy the webhook URL again',
    300005: 'the access_token in webhookUrl is not usable; copy the webhook URL again',
    310000:
      'a robot security setting refused it: signing secret, keyword, IP whitelist or clock; errmsg says which',
    130101: 'more than 20 messages a minute; DingTalk throttles the robot for 10 minutes',
  },
};

/** DingTalk custom group robot ("自定义机器人"), text or markdown, with @mentions and signing. */
export function createDingTalkAdapter() {
  return defineAdapter({
    type: 'dingtalk',
    label: 'DingTalk group robot',
    ...configOf(dingTalkConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    rateLimit(config) {
      // One robot, however its URL was pasted; hashed because the access_token is a credential.
      return {
        key: rateLimitKey('dingtalk', stripSignParams(config.webhookUrl)),
        ...DINGTALK_RATE,
      };
    },
    async send(config, given, runtime) {
      // Files reach the reader as links at the end of the content, in its format.
      const message = withAttachmentLinks(given, { images: true });
      const body = JSON.stringify(buildDingTalkBody(message));
      const bytes = Buffer.byteLength(body, 'utf8');
      if (bytes > DINGTALK_MAX_BODY_BYTES) {
        throw DeliveryError.permanent(
          `message too large for DingTalk: the request is ${bytes} bytes, DingTalk accepts at most ${DINGTALK_MAX_BODY_BYTES}`,
        );
      }
      const res = await httpRequest({
        url: dingTalkRequestUrl(config.webhookUrl, config.secret, runtime.clock.now()),
        headers: { 'Content-Type': 'application/json;charset=utf-8' },
        body,
        options: config,
      });
      throwOnErrcode(res, 'DingTalk', DINGTALK_ERRCODES);
      return { reply: replyOf(res) };
    },
  });
}
