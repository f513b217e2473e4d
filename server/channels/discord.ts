import type { z } from 'zod';

import { discordConfig } from '../../contract/channel-kinds/discord';
import { readableSize } from './attachment-links';
import {
  configOf,
  defineAdapter,
  type Mentions,
  type MessageAttachment,
  type OutboundMessage,
} from './channel-adapter';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { multipartBody, type MultipartPart } from './multipart';
import {
  assertHttpOkWith,
  jsonObjectOf,
  joinLines,
  limitExceeded,
  numberField,
  secondsToMs,
  stringField,
} from './platform-reply';

/** `content` holds at most 2000 characters. */
export const DISCORD_MAX_CHARS = 2000;

/** A message carries at most 10 files. */
export const DISCORD_MAX_FILES = 10;
/** Discord refuses a request above 25 MiB (413, code 40005), the files included. */
export const DISCORD_MAX_REQUEST_BYTES = 25 * 1024 * 1024;
/** Room left in the request for payload_json and the parts' headers. */
const DISCORD_ENVELOPE_BYTES = 64 * 1024;

const SNOWFLAKE = /^\d{17,20}$/;

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const discordConfigSchema = discordConfig.schema;
export type DiscordConfig = z.infer<typeof discordConfigSchema>;

export interface DiscordBody {
  content: string;
  username?: string;
  avatar_url?: string;
  allowed_mentions: { parse: Array<'everyone'>; users: string[] };
  /** With files: which `files[n]` part is which (ids are the n). */
  attachments?: Array<{ id: number; filename: string }>;
  /** SUPPRESS_NOTIFICATIONS (1 << 12) when softened: posted without a push or a sound. */
  flags?: number;
}

/** Discord's message flag SUPPRESS_NOTIFICATIONS: the message makes no push or desktop alert. */
export const DISCORD_SUPPRESS_NOTIFICATIONS = 1 << 12;

/**
 * Escapes Discord markdown so plain text shows as written: the inline markers anywhere, and
 * headings, quotes and list markers at the start of a line.
 */
export function escapeDiscordMarkdown(text: string): string {
  return text
    .replace(/[\\*_~`|[\]<>]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([#>-])(?=\s)/gm, '$1\\$2')
    .replace(/^(\s*\d+)\.(?=\s)/gm, '$1\\.');
}

/**
 * Who gets pinged. Only Discord user ids (snowflakes) become `<@id>`; everyone is `@everyone`.
 * `allowed_mentions` lists exactly those, so an `@everyone` or `<@id>` inside the content
 * itself (a template, a log line) never pings anyone.
 */
export function discordMentions(mentions: Mentions): {
  prefix: string;
  allowed: DiscordBody['allowed_mentions'];
} {
  const users = [
    ...new Set(mentions.userIds.map((id) => id.trim()).filter((id) => SNOWFLAKE.test(id))),
  ].slice(0, 100);
  const prefix = [...users.map((id) => `<@${id}>`), mentions.all ? '@everyone' : '']
    .filter(Boolean)
    .join(' ');
  return { prefix, allowed: { parse: mentions.all ? ['everyone'] : [], users } };
}

/** The execute-webhook body: Markdown as is, plain text escaped, the title in bold. */
export function buildDiscordBody(
  config: Pick<DiscordConfig, 'username' | 'avatarUrl' | 'mentionAtUrgent'>,
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url' | 'mentions'> &
    Partial<Pick<OutboundMessage, 'priority' | 'silent'>>,
): DiscordBody {
  const title = message.title.trim();
  const markdown = message.contentType === 'markdown';
  const { prefix, allowed } = discordMentions(message.mentions);
  // First, so the ping shows in the notification's preview; parse 'everyone' covers @here.
  const here = config.mentionAtUrgent === true && message.priority === 5 && !message.silent;
  if (here) allowed.parse = ['everyone'];
  const content = joinLines(
    here ? '@here' : '',
    title ? `**${escapeDiscordMarkdown(title)}**` : '',
    markdown ? message.content : escapeDiscordMarkdown(message.content),
    message.url ? `<${message.url}>` : '',
    prefix,
  );
  const body: DiscordBody = { content, allowed_mentions: allowed };
  if (config.username) body.username = config.username;
  if (config.avatarUrl) body.avatar_url = config.avatarUrl;
  if (message.silent) body.flags = DISCORD_SUPPRESS_NOTIFICATIONS;
  return body;
}

/**
 * The URL to post to, with `wait=true`: Discord then answers 200 with the saved message, or
 * an error, instead of a 204 that does not say whether the message was saved.
 */
export function discordRequestUrl(config: Pick<DiscordConfig, 'webhookUrl' | 'threadId'>): string {
  const url = new URL(config.webhookUrl);
  url.searchParams.set('wait', 'true');
  if (config.threadId) url.searchParams.set('thread_id', config.threadId);
  return url.toString();
}

const HINTS: Record<number, string> = {
  10015: 'the webhook was deleted; create a new one and update webhookUrl',
  50006: 'the message is empty',
  50035: 'Discord refused a field of the message',
};

/** 2xx succeeds; 429 waits for Retry-After (or the body's `retry_after`). */
export function checkDiscordReply(res: HttpResponse): void {
  const body = jsonObjectOf(res);
  const code = numberField(body, 'code');
  const message = stringField(body, 'message');
  assertHttpOkWith(res, 'Discord', {
    reason: message && code !== undefined ? `${message} (code ${code})` : message,
    hint: code !== undefined ? HINTS[code] : undefined,
    retryAfterMs: secondsToMs(numberField(body, 'retry_after')),
  });
}

/** Discord channel webhook. */
export function createDiscordAdapter() {
  return defineAdapter({
    type: 'discord',
    label: 'Discord webhook',
    ...configOf(discordConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: true,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    // No fixed pacing: Discord says to read its rate-limit headers, and a 429 carries the wait.
    async send(config, message) {
      const { upload, linked } = discordFiles(message.attachments ?? []);
      const body = buildDiscordBody(config, message);
      if (linked.length) body.content = joinLines(body.content, discordLinks(linked));
      if (body.content.length > DISCORD_MAX_CHARS)
        throw limitExceeded('Discord', body.content.length, DISCORD_MAX_CHARS, 'characters');
      let request: { contentType: string; body: string | Buffer } = {
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify(body),
      };
      if (upload.length > 0) {
        const data = await Promise.all(upload.map((file) => file.read()));
        request = discordMultipart(body, upload, data);
      }
      const res = await httpRequest({
        url: discordRequestUrl(config),
        headers: { 'Content-Type': request.contentType },
        body: request.body,
        options: config,
      });
      checkDiscordReply(res);
      const id = stringField(jsonObjectOf(res), 'id');
      return { reply: id ? `message ${id}` : replyOf(res) };
    },
  });
}

/**
 * Files that did not go up, as lines after the content: the name escaped like the text, the
 * URL in `<…>` (as the send's url is) so no escaping reaches it and no embed unfolds.
 */
export function discordLinks(
  files: ReadonlyArray<Pick<MessageAttachment, 'filename' | 'size' | 'url'>>,
): string {
  return files
    .map((f) => `${escapeDiscordMarkdown(f.filename)} (${readableSize(f.size)}): <${f.url}>`)
    .join('\n');
}

/**
 * Which files go up with the message and which become links in its content: the first ten
 * that fit in one request together; the rest, and any too large, reach the channel as links.
 */
export function discordFiles<A extends Pick<MessageAttachment, 'size'>>(
  attachments: readonly A[],
): { upload: A[]; linked: A[] } {
  const upload: A[] = [];
  const linked: A[] = [];
  let bytes = DISCORD_ENVELOPE_BYTES;
  for (const file of attachments) {
    if (upload.length < DISCORD_MAX_FILES && bytes + file.size <= DISCORD_MAX_REQUEST_BYTES) {
      upload.push(file);
      bytes += file.size;
    } else {
      linked.push(file);
    }
  }
  return { upload, linked };
}

/**
 * The execute-webhook request with files: the JSON body as the `payload_json` field, each file
 * as a `files[n]` part, and `attachments` in the payload naming each n (so the file name shown
 * is Herald's, whatever the part says). Images among them Discord shows inline by itself.
 */
export function discordMultipart(
  body: DiscordBody,
  files: ReadonlyArray<Pick<MessageAttachment, 'filename' | 'mime'>>,
  data: readonly Buffer[],
): { contentType: string; body: Buffer } {
  const payload: DiscordBody = {
    ...body,
    attachments: files.map((file, id) => ({ id, filename: file.filename })),
  };
  const parts: MultipartPart[] = [{ name: 'payload_json', value: JSON.stringify(payload) }];
  files.forEach((file, n) =>
    parts.push({
      name: `files[${n}]`,
      filename: file.filename,
      contentType: file.mime,
      data: data[n],
    }),
  );
  return multipartBody(parts);
}
