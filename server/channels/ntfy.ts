import type { z } from 'zod';

import { NTFY_SERVER, ntfyConfig } from '../../contract/channel-kinds/ntfy';

export { NTFY_SERVER };
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { rateLimitKey } from './channel-fields';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import {
  assertHttpOkWith,
  jsonObjectOf,
  limitExceeded,
  numberField,
  stringField,
  utf8Bytes,
} from './platform-reply';

/**
 * ntfy turns a message of 4096 bytes or more into an attachment (or, on a server without an
 * attachment store, refuses it with 40014): the limit is exclusive.
 */
export const NTFY_MAX_MESSAGE_BYTES = 4095;
/** A JSON publish body may be at most twice the message limit (41303). */
export const NTFY_MAX_JSON_BYTES = 8192;
/** ntfy.sh's default visitor bucket: 60 requests, refilled at one per 5 seconds. */
export const NTFY_SH_RATE = { max: 60, perMs: 300_000 } as const;

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const ntfyConfigSchema = ntfyConfig.schema;
export type NtfyConfig = z.infer<typeof ntfyConfigSchema>;

/** ntfy's JSON publish body (posted to the server root, not the topic URL). */
export interface NtfyBody {
  topic: string;
  message: string;
  title?: string;
  priority?: number;
  tags?: string[];
  markdown?: true;
  click?: string;
  /** A file by URL: ntfy's apps show an image inline and offer anything else to download. */
  attach?: string;
  filename?: string;
}

/**
 * JSON publishing rather than headers, so a non-ASCII title needs no RFC 2047 encoding and
 * nothing a template produces can end up in a header. A message has one attachment: the
 * first file goes as `attach` (its URL on Herald) and `filename`; any others end the message
 * as links, in its format.
 */
export function buildNtfyBody(
  config: Pick<NtfyConfig, 'topic' | 'priority' | 'tags'>,
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url'> &
    Partial<Pick<OutboundMessage, 'priority' | 'attachments' | 'silent'>>,
): NtfyBody {
  const [first, ...others] = message.attachments ?? [];
  const content = withAttachmentLinks(
    { content: message.content, contentType: message.contentType },
    { images: true },
    others,
  ).content;
  const body: NtfyBody = { topic: config.topic, message: content };
  if (first) {
    body.attach = first.url;
    body.filename = first.filename;
  }
  const title = message.title.trim();
  if (title) body.title = title;
  // Herald's scale is ntfy's own, so the sender's priority goes as is; the instance's
  // priority is only its default.
  const priority = message.priority ?? config.priority;
  if (priority !== undefined) body.priority = priority;
  // Softened (quiet hours): ntfy's 2 ("low") shows no pop-up and makes no sound or vibration;
  // a 1 the sender chose stays 1.
  if (message.silent) body.priority = Math.min(body.priority ?? 2, 2);
  if (config.tags?.length) body.tags = config.tags;
  if (message.contentType === 'markdown') body.markdown = true;
  if (message.url) body.click = message.url;
  return body;
}

/** The Authorization header for a protected topic, if any. */
export function ntfyAuthorization(
  config: Pick<NtfyConfig, 'token' | 'username' | 'password'>,
): string | undefined {
  if (config.token) return `Bearer ${config.token}`;
  if (config.username && config.password)
    return `Basic ${Buffer.from(`${config.username}:${config.password}`, 'utf8').toString('base64')}`;
  return undefined;
}

const HINTS: Record<number, string> = {
  40101: 'the topic is protected; set token or username/password',
  40301: 'this user or token may not publish to the topic',
  40014: 'the message was too large to be a message on this server',
  42908: 'the daily message quota is used up',
};

/** Errors are `{code, http, error, link}` with the real status. */
export function checkNtfyReply(res: HttpResponse): void {
  const body = jsonObjectOf(res);
  const code = numberField(body, 'code');
  assertHttpOkWith(res, 'ntfy', {
    reason: stringField(body, 'error'),
    hint: code !== undefined ? HINTS[code] : undefined,
  });
}

/** ntfy publish (ntfy.sh or a self-hosted server). */
export function createNtfyAdapter() {
  return defineAdapter({
    type: 'ntfy',
    label: 'ntfy',
    ...configOf(ntfyConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    // The public server's limit is per client IP across topics; self-hosted limits vary.
    rateLimit: (config) =>
      new URL(config.serverUrl).hostname === 'ntfy.sh'
        ? { key: rateLimitKey('ntfy', config.serverUrl), ...NTFY_SH_RATE }
        : null,
    async send(config, message) {
      const body = buildNtfyBody(config, message);
      const messageBytes = utf8Bytes(body.message);
      if (messageBytes > NTFY_MAX_MESSAGE_BYTES)
        throw limitExceeded('ntfy', messageBytes, NTFY_MAX_MESSAGE_BYTES, 'bytes');
      const json = JSON.stringify(body);
      const jsonBytes = utf8Bytes(json);
      if (jsonBytes > NTFY_MAX_JSON_BYTES)
        throw limitExceeded('ntfy (whole request)', jsonBytes, NTFY_MAX_JSON_BYTES, 'bytes');
      const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
      const authorization = ntfyAuthorization(config);
      if (authorization) headers.Authorization = authorization;
      // The JSON publish endpoint is the server root (with any path prefix of a proxy).
      const res = await httpRequest({
        url: `${config.serverUrl}/`,
        headers,
        body: json,
        options: config,
      });
      checkNtfyReply(res);
      const id = stringField(jsonObjectOf(res), 'id');
      return { reply: id ? `message ${id}` : replyOf(res) };
    },
  });
}
