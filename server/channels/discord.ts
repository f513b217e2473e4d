import type { z } from 'zod';

import { discordConfig } from '../../contract/channel-kinds/discord';
import { configOf, defineAdapter, type Mentions, type OutboundMessage } from './channel-adapter';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
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

const SNOWFLAKE = /^\d{17,20}$/;

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const discordConfigSchema = discordConfig.schema;
export type DiscordConfig = z.infer<typeof discordConfigSchema>;

export interface DiscordBody {
  content: string;
  username?: string;
  avatar_url?: string;
  allowed_mentions: { parse: Array<'everyone'>; users: string[] };
}

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
    Partial<Pick<OutboundMessage, 'priority'>>,
): DiscordBody {
  const title = message.title.trim();
  const markdown = message.contentType === 'markdown';
  const { prefix, allowed } = discordMentions(message.mentions);
  // First, so the ping shows in the notification's preview; parse 'everyone' covers @here.
  const here = config.mentionAtUrgent === true && message.priority === 5;
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
      const body = buildDiscordBody(config, message);
      if (body.content.length > DISCORD_MAX_CHARS)
        throw limitExceeded('Discord', body.content.length, DISCORD_MAX_CHARS, 'characters');
      const res = await httpRequest({
        url: discordRequestUrl(config),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify(body),
        options: config,
      });
      checkDiscordReply(res);
      const id = stringField(jsonObjectOf(res), 'id');
      return { reply: id ? `message ${id}` : replyOf(res) };
    },
  });
}
