import type { z } from 'zod';

import {
  SERVERCHAN3_KEY,
  SERVERCHAN_TURBO_BASE_URL,
  serverChanConfig,
} from '../../contract/channel-kinds/serverchan';
import { convertContent } from '../domain/content-format';
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { DeliveryError } from './delivery-error';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { assertHttpOkWith, jsonObjectOf, numberField, stringField } from './platform-reply';
import { withUrlLink } from './url-link';

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const serverChanConfigSchema = serverChanConfig.schema;
export type ServerChanConfig = z.infer<typeof serverChanConfigSchema>;

/** How much of the message the card shows as `short` (Herald's choice; see docs/channels.md). */
export const SERVERCHAN_SHORT_MAX = 64;

/** The uid of a Server酱³ key (`sctp{uid}t…`), or null for a Turbo key. */
export function serverChan3Uid(sendKey: string): string | null {
  return SERVERCHAN3_KEY.exec(sendKey)?.[1] ?? null;
}

/**
 * Where a key sends, as the official SDK builds it: a Server酱³ key to its own host
 * `https://{uid}.push.ft07.com/send/{key}.send`, any other to
 * `https://sctapi.ftqq.com/{key}.send`. A relay (`baseUrl`) takes the same paths, so it can
 * tell the two apart and read the uid from the key as the platform does.
 */
export function serverChanUrl(sendKey: string, baseUrl?: string): string {
  const uid = serverChan3Uid(sendKey);
  const key = encodeURIComponent(sendKey);
  if (uid === null) return `${baseUrl ?? SERVERCHAN_TURBO_BASE_URL}/${key}.send`;
  return `${baseUrl ?? `https://${uid}.push.ft07.com`}/send/${key}.send`;
}

/** The JSON body both editions take. */
export interface ServerChanBody {
  title: string;
  desp: string;
  short?: string;
  /** Turbo only. */
  noip?: 1;
  /** Server酱³ only. */
  tags?: string;
}

/**
 * One message: `desp` is Markdown (the send's url ends it as a link), `short` the card's text,
 * `noip` only for Turbo keys and `tags` only for Server酱³ keys, each edition's own fields.
 */
export function buildServerChanBody(
  config: Pick<ServerChanConfig, 'sendKey' | 'tags' | 'noip'>,
  message: Pick<OutboundMessage, 'title' | 'content' | 'url'>,
): ServerChanBody {
  const sc3 = serverChan3Uid(config.sendKey) !== null;
  const desp = withUrlLink(message.content, message.url, 'markdown');
  const text = convertContent(message.content, 'markdown', 'text').replace(/\s+/g, ' ').trim();
  const short = [...text].slice(0, SERVERCHAN_SHORT_MAX).join('');
  return {
    title: message.title.trim(),
    desp,
    ...(short && { short }),
    ...(!sc3 && config.noip && { noip: 1 as const }),
    ...(sc3 && config.tags && { tags: config.tags }),
  };
}

/**
 * Both editions answer `{code, message, data}`: `code` 0 is success, anything else a failure
 * that carries its `message`. Refusals are permanent (a wrong key, a daily quota used up: a
 * retry within minutes cannot help); HTTP 429 and 5xx stay transient.
 */
export function checkServerChanReply(res: HttpResponse): void {
  const body = jsonObjectOf(res);
  const code = numberField(body, 'code');
  const message = stringField(body, 'message') ?? stringField(body, 'info');
  assertHttpOkWith(res, 'ServerChan', {
    reason: code === undefined ? undefined : `code ${code}${message ? `: ${message}` : ''}`,
  });
  if (code === 0) return;
  throw DeliveryError.permanent(
    code === undefined
      ? `ServerChan answered without a code: ${res.text.slice(0, 200) || '(empty)'}`
      : `ServerChan refused the message: code ${code}${message ? `: ${message}` : ''}`,
    { reply: replyOf(res) },
  );
}

/** Server酱 (ServerChan): Turbo (sct.ftqq.com) and Server酱³ (sc3.ft07.com), by the key. */
export function createServerChanAdapter() {
  return defineAdapter({
    type: 'serverchan',
    label: 'ServerChan',
    ...configOf(serverChanConfig),
    contentTypes: ['markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    async send(config, given) {
      // Files reach the reader as links at the end of the Markdown.
      const message = withAttachmentLinks(given, { images: true });
      const res = await httpRequest({
        url: serverChanUrl(config.sendKey, config.baseUrl),
        headers: { 'Content-Type': 'application/json;charset=utf-8' },
        body: JSON.stringify(buildServerChanBody(config, message)),
        options: config,
      });
      checkServerChanReply(res);
      return { reply: replyOf(res) };
    },
  });
}
