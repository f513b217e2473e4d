import type { z } from 'zod';

import type { Priority } from '../../contract/priority';
import { markdownToHtml } from '../domain/content-format';
import { TELEGRAM_API, telegramConfig } from '../../contract/channel-kinds/telegram';

export { TELEGRAM_API };
import { withAttachmentLinks } from './attachment-links';
import {
  configOf,
  defineAdapter,
  type MessageAttachment,
  type OutboundMessage,
} from './channel-adapter';
import { joinUrl, rateLimitKey } from './channel-fields';
import { DeliveryError } from './delivery-error';
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
import { escapeTelegramHtml, telegramVisibleText, toTelegramHtml } from './telegram-html';

/** sendMessage takes 1–4096 characters of visible text (after entity parsing). */
export const TELEGRAM_MAX_CHARS = 4096;
/** A photo's or document's caption: 0–1024 characters after entity parsing. */
export const TELEGRAM_MAX_CAPTION_CHARS = 1024;
/** sendPhoto takes photos up to 10 MB; a larger image goes as a document. */
export const TELEGRAM_MAX_PHOTO_BYTES = 10 * 1024 * 1024;
/** Bots upload files of any type up to 50 MB; a larger one is sent as its link. */
export const TELEGRAM_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** The image types sendPhoto shows as photos; other images (GIF, SVG) go as documents. */
const PHOTO_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);
/** Bot FAQ: at most 20 messages a minute to one group, about one a second to one user. */
export const TELEGRAM_GROUP_RATE = { max: 20, perMs: 60_000 } as const;
export const TELEGRAM_PRIVATE_RATE = { max: 1, perMs: 1_000 } as const;

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const telegramConfigSchema = telegramConfig.schema;
export type TelegramConfig = z.infer<typeof telegramConfigSchema>;

export interface TelegramSendMessage {
  chat_id: string;
  text: string;
  parse_mode?: 'HTML';
  message_thread_id?: number;
  disable_notification?: boolean;
}

/**
 * The sendMessage text. HTML and Markdown instances use parse mode HTML: Markdown is rendered
 * to HTML first and both are reduced to the tags Telegram knows, with text escaped. HTML was
 * chosen over MarkdownV2 because MarkdownV2 needs 18 characters escaped everywhere outside
 * entities and different rules inside them, so one miss fails the whole send; HTML needs
 * three. Text instances send no parse mode, so the text arrives exactly as written.
 */
export function telegramText(
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url'>,
): { text: string; parseMode?: 'HTML' } {
  const title = message.title.trim();
  if (message.contentType === 'text')
    return { text: joinLines(title, message.content, message.url) };
  const body = toTelegramHtml(
    message.contentType === 'markdown' ? markdownToHtml(message.content) : message.content,
  );
  const link = message.url
    ? `<a href="${escapeTelegramHtml(message.url).replace(/"/g, '&quot;')}">${escapeTelegramHtml(message.url)}</a>`
    : '';
  return {
    text: joinLines(title ? `<b>${escapeTelegramHtml(title)}</b>` : '', body, link),
    parseMode: 'HTML',
  };
}

/** The length Telegram checks: visible characters, counted as UTF-16 units (conservative). */
export function telegramLength(text: string, parseMode: 'HTML' | undefined): number {
  return (parseMode ? telegramVisibleText(text) : text).length;
}

/**
 * The sendMessage body. A message over 4096 characters is refused rather than split: split
 * parts cannot be retried as one, so a failure half-way would repeat the first parts.
 */
export function buildTelegramBody(
  config: Pick<TelegramConfig, 'chatId' | 'messageThreadId' | 'disableNotification'>,
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url'> &
    Partial<Pick<OutboundMessage, 'priority' | 'silent'>>,
): TelegramSendMessage {
  const { text, parseMode } = telegramText(message);
  const length = telegramLength(text, parseMode);
  if (length > TELEGRAM_MAX_CHARS)
    throw limitExceeded('Telegram', length, TELEGRAM_MAX_CHARS, 'characters');
  if (length === 0 || !telegramVisibleText(text).trim())
    throw DeliveryError.permanent(
      'Telegram cannot send an empty message: title and content are empty',
    );
  const body: TelegramSendMessage = { chat_id: config.chatId, text };
  if (parseMode) body.parse_mode = parseMode;
  if (config.messageThreadId !== undefined) body.message_thread_id = config.messageThreadId;
  // Softened (quiet hours) is silent whatever the priority.
  if (message.silent || telegramSilent(config, message.priority ?? null)) {
    body.disable_notification = true;
  }
  return body;
}

/**
 * Whether to deliver without sound. Telegram has only this switch: priorities 1–2 are silent,
 * 4–5 ring even on an instance set to silent, and 3 ("default") or none leave it to the
 * instance.
 */
export function telegramSilent(
  config: Pick<TelegramConfig, 'disableNotification'>,
  priority: Priority | null,
): boolean {
  if (priority !== null && priority !== 3) return priority <= 2;
  return config.disableNotification === true;
}

/** Throws unless the reply is `{"ok":true}`; 429 waits for `parameters.retry_after`. */
export function checkTelegramReply(res: HttpResponse): void {
  const body = jsonObjectOf(res);
  const parameters = body?.parameters as Record<string, unknown> | undefined;
  const description = stringField(body, 'description');
  const migrateTo = numberField(parameters, 'migrate_to_chat_id');
  assertHttpOkWith(res, 'Telegram', {
    reason: description,
    retryAfterMs: secondsToMs(numberField(parameters, 'retry_after')),
    hint:
      migrateTo !== undefined
        ? `the group became a supergroup; set chatId to ${migrateTo}`
        : res.status === 401 || res.status === 404
          ? 'check the bot token'
          : undefined,
  });
  if (body?.ok !== true)
    throw DeliveryError.permanent('Telegram answered without "ok": true', { reply: replyOf(res) });
}

/** Telegram Bot API sendMessage to one chat, group or channel. */
export function createTelegramAdapter() {
  return defineAdapter({
    type: 'telegram',
    label: 'Telegram bot',
    ...configOf(telegramConfig),
    contentTypes: ['text', 'html', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    rateLimit: (config) => ({
      key: rateLimitKey('telegram', config.botToken, config.chatId),
      // Groups and channels have negative ids or @names; users have positive ids.
      ...(/^\d+$/.test(config.chatId) ? TELEGRAM_PRIVATE_RATE : TELEGRAM_GROUP_RATE),
    }),
    async send(config, message) {
      const files = (message.attachments ?? []).filter((a) => a.size <= TELEGRAM_MAX_UPLOAD_BYTES);
      // Files over the upload limit reach the chat as links at the end of the text.
      const sent = withAttachmentLinks(
        message,
        { images: false },
        (message.attachments ?? []).filter((a) => a.size > TELEGRAM_MAX_UPLOAD_BYTES),
      );
      const body = buildTelegramBody(config, sent);
      const ids: number[] = [];
      // The text rides as the first file's caption when it fits one; otherwise it goes first,
      // as a message of its own, exactly as without files.
      const asCaption =
        files.length > 0 &&
        telegramLength(body.text, body.parse_mode) <= TELEGRAM_MAX_CAPTION_CHARS;
      if (!asCaption) {
        const res = await httpRequest({
          url: joinUrl(config.serverUrl, `bot${config.botToken}/sendMessage`),
          headers: { 'Content-Type': 'application/json; charset=utf-8' },
          body: JSON.stringify(body),
          options: config,
        });
        checkTelegramReply(res);
        if (files.length === 0) return { reply: receiptOf(res) };
        ids.push(...messageIdOf(res));
      }
      for (const [i, file] of files.entries()) {
        const upload = telegramUpload(body, file, await file.read(), asCaption && i === 0);
        const res = await httpRequest({
          url: joinUrl(config.serverUrl, `bot${config.botToken}/${upload.method}`),
          headers: { 'Content-Type': upload.contentType },
          body: upload.body,
          options: config,
        });
        checkTelegramReply(res);
        ids.push(...messageIdOf(res));
      }
      return { reply: `message_id ${ids.join(', ')}` };
    },
  });
}

function messageIdOf(res: HttpResponse): number[] {
  const id = numberField(
    jsonObjectOf(res)?.result as Record<string, unknown> | undefined,
    'message_id',
  );
  return id === undefined ? [] : [id];
}

function receiptOf(res: HttpResponse): string {
  const [id] = messageIdOf(res);
  return id === undefined ? replyOf(res) : `message_id ${id}`;
}

/**
 * One file as a multipart upload: JPEG, PNG and WebP images up to 10 MB through sendPhoto
 * (shown as a photo), anything else through sendDocument (a file to download). The chat,
 * thread and sound settings are the text's; the caption, when given, is the whole text.
 */
export function telegramUpload(
  text: TelegramSendMessage,
  file: Pick<MessageAttachment, 'filename' | 'mime' | 'size' | 'inline'>,
  data: Buffer,
  withCaption: boolean,
): { method: 'sendPhoto' | 'sendDocument'; contentType: string; body: Buffer } {
  const photo = file.inline && PHOTO_TYPES.has(file.mime) && file.size <= TELEGRAM_MAX_PHOTO_BYTES;
  const parts: MultipartPart[] = [{ name: 'chat_id', value: text.chat_id }];
  if (text.message_thread_id !== undefined)
    parts.push({ name: 'message_thread_id', value: String(text.message_thread_id) });
  if (text.disable_notification) parts.push({ name: 'disable_notification', value: 'true' });
  if (withCaption) {
    parts.push({ name: 'caption', value: text.text });
    if (text.parse_mode) parts.push({ name: 'parse_mode', value: text.parse_mode });
  }
  parts.push({
    name: photo ? 'photo' : 'document',
    filename: file.filename,
    contentType: file.mime,
    data,
  });
  const { contentType, body } = multipartBody(parts);
  return { method: photo ? 'sendPhoto' : 'sendDocument', contentType, body };
}
