import type { z } from 'zod';

import type { Priority } from '../../contract/priority';
import { convertContent } from '../domain/content-format';
import { BARK_SERVER, BARK_LEVELS, barkConfig } from '../../contract/channel-kinds/bark';

export { BARK_SERVER, BARK_LEVELS };
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { joinUrl } from './channel-fields';
import { DeliveryError } from './delivery-error';
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
 * APNs takes payloads up to 4096 bytes, and bark-server wraps our fields in its own envelope
 * before forwarding; a larger push fails inside APNs with a 500 that would look retryable.
 */
export const BARK_MAX_BODY_BYTES = 3_800;

type BarkLevel = (typeof BARK_LEVELS)[number];

/**
 * Herald's priority as an iOS interruption level: 1–2 only land in the notification list,
 * 3 is iOS's ordinary alert, 4 breaks through Focus and 5 through silent mode and Do Not
 * Disturb (the app must have been allowed critical alerts, otherwise iOS shows it as active).
 */
export const BARK_LEVEL_BY_PRIORITY: Readonly<Record<Priority, BarkLevel>> = {
  1: 'passive',
  2: 'passive',
  3: 'active',
  4: 'timeSensitive',
  5: 'critical',
};

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const barkConfigSchema = barkConfig.schema;
export type BarkConfig = z.infer<typeof barkConfigSchema>;

export interface BarkBody {
  device_key: string;
  body: string;
  markdown?: string;
  title?: string;
  group?: string;
  sound?: string;
  level?: BarkLevel;
  icon?: string;
  url?: string;
  /** An image the Bark app downloads and shows in the expanded notification. */
  image?: string;
}

/**
 * The V2 `/push` body. Markdown goes in `markdown`, which the Bark app renders and prefers
 * over `body`; `body` still carries a plain-text rendering for the lock-screen banner and for
 * app versions without Markdown. A push shows one image: the first image file goes as `image`;
 * every other file ends the content as a link.
 */
export function buildBarkBody(
  config: Pick<BarkConfig, 'deviceKey' | 'group' | 'sound' | 'level' | 'icon'>,
  original: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url'> &
    Partial<Pick<OutboundMessage, 'priority' | 'attachments' | 'silent'>>,
): BarkBody {
  const files = original.attachments ?? [];
  const image = files.find((a) => a.inline);
  const message = withAttachmentLinks(
    original,
    { images: false },
    files.filter((a) => a !== image),
  );
  const markdown = message.contentType === 'markdown';
  const body: BarkBody = {
    device_key: config.deviceKey,
    body: markdown ? convertContent(message.content, 'markdown', 'text') : message.content,
  };
  if (markdown) body.markdown = message.content;
  const title = message.title.trim();
  if (title) body.title = title;
  if (config.group) body.group = config.group;
  if (config.sound) body.sound = config.sound;
  // The instance's level is only the default; no `volume` at critical, so the app's own
  // critical-alert volume applies.
  // Softened (quiet hours): `passive` adds it to the notification list without lighting the
  // screen or sounding.
  const level = original.silent
    ? 'passive'
    : message.priority
      ? BARK_LEVEL_BY_PRIORITY[message.priority]
      : config.level;
  if (level) body.level = level;
  if (config.icon) body.icon = config.icon;
  if (message.url) body.url = message.url;
  if (image) body.image = image.url;
  return body;
}

// APNs reasons that no retry can fix, reported by bark-server as 500 "push failed: …".
const APNS_PERMANENT =
  /BadDeviceToken|Unregistered|DeviceTokenNotForTopic|PayloadTooLarge|MissingDeviceToken/;

/** Replies are `{code, message, timestamp}` with the real status (400 unknown key, 500 APNs). */
export function checkBarkReply(res: HttpResponse): void {
  const body = jsonObjectOf(res);
  const message = stringField(body, 'message');
  const apnsRefused = res.status >= 500 && message !== undefined && APNS_PERMANENT.test(message);
  assertHttpOkWith(res, 'Bark', {
    reason: message,
    hint: /device token|device key/i.test(message ?? '')
      ? 'check deviceKey (and serverUrl for a self-hosted server)'
      : undefined,
    retryable: apnsRefused ? false : undefined,
  });
  const code = numberField(body, 'code');
  if (code !== undefined && code !== 200)
    throw DeliveryError.permanent(
      `Bark refused the push: code ${code}${message ? ` ${message}` : ''}`,
      {
        reply: replyOf(res),
      },
    );
}

/** Bark (iOS push through bark-server: api.day.app or self-hosted). */
export function createBarkAdapter() {
  return defineAdapter({
    type: 'bark',
    label: 'Bark (iOS)',
    ...configOf(barkConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    async send(config, message) {
      const json = JSON.stringify(buildBarkBody(config, message));
      const size = utf8Bytes(json);
      if (size > BARK_MAX_BODY_BYTES)
        throw limitExceeded('Bark', size, BARK_MAX_BODY_BYTES, 'bytes');
      const res = await httpRequest({
        url: joinUrl(config.serverUrl, 'push'),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: json,
        options: config,
      });
      checkBarkReply(res);
      return { reply: replyOf(res) };
    },
  });
}
