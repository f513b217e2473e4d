import type { z } from 'zod';

import {
  WXPUSHER_CONTENT_TYPES,
  WXPUSHER_DEFAULT_BASE_URL,
  WXPUSHER_LIMITS,
  WXPUSHER_UID,
  sptsOf,
  wxPusherConfig,
} from '../../contract/channel-kinds/wxpusher';
import { convertContent } from '../domain/content-format';
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type ContentType, type OutboundMessage } from './channel-adapter';
import { joinUrl, rateLimitKey } from './channel-fields';
import { DeliveryError } from './delivery-error';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { assertHttpOkWith, jsonObjectOf, limitExceeded } from './platform-reply';

export { WXPUSHER_DEFAULT_BASE_URL };

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const wxPusherConfigSchema = wxPusherConfig.schema;
export type WxPusherConfig = z.infer<typeof wxPusherConfigSchema>;

/** WxPusher's success code, for the request and for each target in `data`. */
export const WXPUSHER_OK = 1000;

/**
 * "About 2 requests a second" (the send API's default rate limit, api-reference.html): paced per
 * account, i.e. per appToken (or per set of SPTs), across processes on PostgreSQL.
 */
export const WXPUSHER_RATE = { max: 2, perMs: 1000 } as const;

/**
 * WxPusher's result codes (ResultCode of its official Java client): 1005 server error, 1006
 * trouble talking to WeChat, 1007 network and 1009 unknown are worth retrying; 1001 (business
 * error: a wrong appToken, nobody to send to), 1002 unauthorised, 1003 bad signature, 1004 no
 * such API and 1008 bad data are not.
 */
export const WXPUSHER_TRANSIENT = new Set([1005, 1006, 1007, 1009]);
const WXPUSHER_HINTS: Readonly<Record<number, string>> = {
  1001: 'check appToken (WxPusher admin → the app → appToken) and the UIDs or topics',
  1002: 'the appToken or SPT is not accepted',
  1004: 'baseUrl does not point at WxPusher’s API',
};

export type WxPusherBody = {
  content: string;
  summary?: string;
  contentType: 1 | 2 | 3;
  url?: string;
} & (
  | { appToken: string; uids?: string[]; topicIds?: number[] }
  | { spt: string }
  | { sptList: string[] }
);

/** Returns an error text unless `recipient` is a WxPusher UID, or null. */
export function validateWxPusherRecipient(recipient: string): string | null {
  return WXPUSHER_UID.test(recipient.trim())
    ? null
    : `"${recipient}" is not a WxPusher UID (UID_…: letters, digits, _ and -)`;
}

/**
 * The message. WxPusher shows `summary` in the notification and `content` when opened, so the
 * title is the summary (cut to 100 characters) and the content stays as written; the send's
 * url, else the channel's, is the link the message opens. A dynamic recipient is the one UID
 * the message goes to, in place of the channel's UIDs and topics.
 */
export function buildWxPusherBody(
  config: WxPusherConfig,
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url' | 'recipient'>,
): WxPusherBody {
  const format: ContentType = config.contentType
    ? formatOf(config.contentType as 1 | 2 | 3)
    : message.contentType;
  const content = convertContent(message.content, message.contentType, format);
  const summary = Array.from(message.title.replace(/\s+/g, ' ').trim())
    .slice(0, WXPUSHER_LIMITS.summaryChars)
    .join('');
  const url = message.url ?? config.url;
  const common = {
    content,
    ...(summary ? { summary } : {}),
    contentType: WXPUSHER_CONTENT_TYPES[format],
    ...(url ? { url } : {}),
  };
  if (config.mode === 'spt') {
    const spts = sptsOf(config.spt);
    return spts.length === 1 ? { ...common, spt: spts[0] } : { ...common, sptList: spts };
  }
  const recipient = message.recipient?.trim();
  if (recipient) return { ...common, appToken: config.appToken ?? '', uids: [recipient] };
  return {
    ...common,
    appToken: config.appToken ?? '',
    ...(config.uids?.length ? { uids: config.uids } : {}),
    ...(config.topicIds?.length ? { topicIds: config.topicIds.map(Number) } : {}),
  };
}

function formatOf(code: 1 | 2 | 3): ContentType {
  return code === 1 ? 'text' : code === 2 ? 'html' : 'markdown';
}

/** Refuses what WxPusher would refuse, before any request. */
export function assertWxPusherSendable(body: WxPusherBody, recipient: string | null): void {
  if ('appToken' in body && !body.uids?.length && !body.topicIds?.length) {
    throw DeliveryError.permanent(
      'no WxPusher recipient: set the channel’s uids or topicIds, or use a dynamic-recipient instance',
    );
  }
  if (!('appToken' in body) && recipient) {
    throw DeliveryError.permanent(
      'a simple-push (SPT) channel has no recipients of its own: each SPT is one person; use an app channel for UIDs',
    );
  }
  const chars = Array.from(body.content).length;
  if (chars >= WXPUSHER_LIMITS.contentChars)
    throw limitExceeded('WxPusher', chars, WXPUSHER_LIMITS.contentChars - 1, 'characters');
  if (body.url && body.url.length >= WXPUSHER_LIMITS.urlChars)
    throw DeliveryError.permanent(
      `the link is ${body.url.length} characters; WxPusher takes links shorter than ${WXPUSHER_LIMITS.urlChars}`,
    );
}

/** One target's result in WxPusher's `data`: a UID, a topic or an SPT. */
interface TargetResult {
  target: string;
  ok: boolean;
  status: string;
}

function targetResults(data: unknown): TargetResult[] {
  if (!Array.isArray(data)) return [];
  return data
    .filter((d): d is Record<string, unknown> => !!d && typeof d === 'object')
    .map((d) => {
      const target =
        typeof d.uid === 'string' && d.uid
          ? d.uid
          : d.topicId !== undefined && d.topicId !== null
            ? `topic ${String(d.topicId)}`
            : typeof d.spt === 'string'
              ? d.spt
              : '?';
      const code = typeof d.code === 'number' ? d.code : Number(d.code);
      const status = typeof d.status === 'string' ? d.status : '';
      return { target, ok: code === WXPUSHER_OK, status: status || `code ${String(d.code)}` };
    });
}

/**
 * Checks WxPusher's answer and words the receipt. The request is accepted with `code 1000`;
 * each UID and topic then has its own code in `data`. The receipt leads with the targets that
 * were not reached (the reply is cut at 2,000 characters), then the whole answer. When no
 * target at all was reached the delivery fails.
 */
export function checkWxPusherReply(res: HttpResponse): string {
  const body = jsonObjectOf(res);
  const raw = replyOf(res);
  assertHttpOkWith(res, 'WxPusher', {
    reason: typeof body?.msg === 'string' ? body.msg : undefined,
  });
  if (!body || body.code === undefined) {
    throw DeliveryError.permanent('WxPusher answered with something that is not its API', {
      reply: raw,
    });
  }
  const code = typeof body.code === 'number' ? body.code : Number(body.code);
  if (code !== WXPUSHER_OK) {
    const msg = typeof body.msg === 'string' && body.msg ? ` ${body.msg}` : '';
    const hint = WXPUSHER_HINTS[code] ? ` (${WXPUSHER_HINTS[code]})` : '';
    const message = `WxPusher refused the message: code ${String(body.code)}${msg}${hint}`;
    if (WXPUSHER_TRANSIENT.has(code)) throw DeliveryError.transient(message, { reply: raw });
    throw DeliveryError.permanent(message, { reply: raw });
  }
  const results = targetResults(body.data);
  const missed = results.filter((r) => !r.ok);
  if (results.length === 0) return raw;
  const words = missed.map((r) => `${r.target}: ${r.status}`).join('; ');
  if (missed.length === results.length) {
    throw DeliveryError.permanent(
      `WxPusher reached none of the ${results.length} recipients (${words})`,
      { reply: raw },
    );
  }
  if (missed.length === 0) return `reached ${results.length} of ${results.length}; ${raw}`;
  return `reached ${results.length - missed.length} of ${results.length}; not reached: ${words}; ${raw}`;
}

/** The send endpoint: the app API, or simple push's. */
export function wxPusherSendUrl(config: Pick<WxPusherConfig, 'baseUrl' | 'mode'>): string {
  return joinUrl(
    config.baseUrl,
    config.mode === 'spt' ? 'api/send/message/simple-push' : 'api/send/message',
  );
}

/** WxPusher (wxpusher.zjiecode.com or a relay): an app's UIDs and topics, or simple push. */
export function createWxPusherAdapter() {
  return defineAdapter({
    type: 'wxpusher',
    label: 'WxPusher',
    ...configOf(wxPusherConfig),
    contentTypes: ['text', 'html', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: true,
    fixedRecipient: 'none',
    validateRecipient: validateWxPusherRecipient,
    rateLimit(config) {
      const account =
        config.mode === 'spt' ? sptsOf(config.spt).join(',') : (config.appToken ?? '');
      return { key: rateLimitKey('wxpusher', config.baseUrl, account), ...WXPUSHER_RATE };
    },
    async send(config, given) {
      // Files reach the reader as links at the end of the content, in its format.
      const message = withAttachmentLinks(given, { images: true });
      const body = buildWxPusherBody(config, message);
      assertWxPusherSendable(body, message.recipient);
      const res = await httpRequest({
        url: wxPusherSendUrl(config),
        headers: { 'Content-Type': 'application/json;charset=utf-8' },
        body: JSON.stringify(body),
        options: config,
      });
      return { reply: checkWxPusherReply(res) };
    },
  });
}
