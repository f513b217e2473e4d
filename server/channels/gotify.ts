import type { z } from 'zod';

import type { Priority } from '../../contract/priority';
import { gotifyConfig } from '../../contract/channel-kinds/gotify';
import { withAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { joinUrl } from './channel-fields';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { assertHttpOkWith, jsonObjectOf, numberField, stringField } from './platform-reply';

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const gotifyConfigSchema = gotifyConfig.schema;
export type GotifyConfig = z.infer<typeof gotifyConfigSchema>;

/**
 * Herald's 1–5 on Gotify's 0–10. The ends and the middle are fixed by the issue (1→1, 3→5,
 * 5→10); 2 and 4 land in the Gotify Android app's bands next to them: 3 is the top of its
 * "low" band (1–3) and 8 the bottom of its "high" band (8–10, heads-up with sound).
 */
export const GOTIFY_PRIORITY: Readonly<Record<Priority, number>> = {
  1: 1,
  2: 3,
  3: 5,
  4: 8,
  5: 10,
};

export interface GotifyBody {
  message: string;
  title?: string;
  priority?: number;
  extras: {
    'client::display': { contentType: 'text/plain' | 'text/markdown' };
    'client::notification'?: { click?: { url: string }; bigImageUrl?: string };
  };
}

/**
 * The message body. Markdown is opt-in through `client::display`; the link, if any, opens when
 * the notification is tapped. An empty title is left out so Gotify shows the app's name.
 * Files end the message: images as Markdown images in a Markdown message (the app and the web
 * UI show them), links otherwise; the first image is also the notification's big picture.
 */
export function buildGotifyBody(
  config: Pick<GotifyConfig, 'priority'>,
  original: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url'> &
    Partial<Pick<OutboundMessage, 'priority' | 'attachments'>>,
): GotifyBody {
  const image = original.attachments?.find((a) => a.inline);
  const message = withAttachmentLinks(original, { images: true });
  const body: GotifyBody = {
    message: message.content,
    extras: {
      'client::display': {
        contentType: message.contentType === 'markdown' ? 'text/markdown' : 'text/plain',
      },
    },
  };
  const title = message.title.trim();
  if (title) body.title = title;
  // The instance's priority (or, without one, the application's) is only the default.
  const priority = message.priority ? GOTIFY_PRIORITY[message.priority] : config.priority;
  if (priority !== undefined) body.priority = priority;
  const notification: NonNullable<GotifyBody['extras']['client::notification']> = {};
  if (message.url) notification.click = { url: message.url };
  if (image) notification.bigImageUrl = image.url;
  if (notification.click || notification.bigImageUrl)
    body.extras['client::notification'] = notification;
  return body;
}

/** Errors are `{error, errorCode, errorDescription}` with the real status. */
export function checkGotifyReply(res: HttpResponse): void {
  const body = jsonObjectOf(res);
  assertHttpOkWith(res, 'Gotify', {
    reason: stringField(body, 'errorDescription') ?? stringField(body, 'error'),
    hint:
      res.status === 401
        ? 'appToken must be an application token'
        : res.status === 403
          ? 'the request carried user credentials; use an application token'
          : undefined,
  });
}

/** Gotify push to a self-hosted server. */
export function createGotifyAdapter() {
  return defineAdapter({
    type: 'gotify',
    label: 'Gotify',
    ...configOf(gotifyConfig),
    contentTypes: ['text', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    async send(config, message) {
      const res = await httpRequest({
        url: joinUrl(config.serverUrl, 'message'),
        // The header keeps the token out of URLs, which proxies and access logs record.
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'X-Gotify-Key': config.appToken,
        },
        body: JSON.stringify(buildGotifyBody(config, message)),
        options: config,
      });
      checkGotifyReply(res);
      const id = numberField(jsonObjectOf(res), 'id');
      return { reply: id === undefined ? replyOf(res) : `message ${id}` };
    },
  });
}
