import type { z } from 'zod';

import { PUSHME_DEFAULT_SERVER_URL, pushMeConfig } from '../../contract/channel-kinds/pushme';

export { PUSHME_DEFAULT_SERVER_URL };
import { withAttachmentLinks } from './attachment-links';
import { withUrlLink } from './url-link';
import { configOf, defineAdapter, type OutboundMessage } from './channel-adapter';
import { DeliveryError } from './delivery-error';
import { httpRequest, replyOf, type HttpResponse } from './http-client';
import { assertHttpOkWith, jsonObjectOf, numberField } from './platform-reply';

/** The config as declared for the console and the contract (contract/channel-kinds). */
export const pushMeConfigSchema = pushMeConfig.schema;
export type PushMeConfig = z.infer<typeof pushMeConfigSchema>;

/** PushMe's form fields for one message; values are strings. */
export interface PushMeFields {
  push_key: string;
  title: string;
  content: string;
  type: 'text' | 'markdown' | 'html';
}

/**
 * The form fields. PushMe renders `content` as `type` says; it has no link field, so the
 * send's url ends the content (a link in markdown and HTML, a line in text).
 */
export function buildPushMeFields(
  config: Pick<PushMeConfig, 'pushKey'>,
  message: Pick<OutboundMessage, 'title' | 'content' | 'contentType' | 'url'>,
): PushMeFields {
  const content = withUrlLink(message.content, message.url, message.contentType);
  return {
    push_key: config.pushKey,
    title: message.title.trim(),
    content,
    type: message.contentType,
  };
}

/** The form-urlencoded body every PushMe client sends. */
export function pushMeFormBody(fields: PushMeFields): string {
  return new URLSearchParams({ ...fields }).toString();
}

/**
 * PushMe answers the plain text `success`; its errors are plain strings, mostly with HTTP 200
 * (`Push failed, empty push_key!`), so anything else is a failure. Its robot-compatible reply
 * `{"code":0,…}` counts as success too.
 */
export function checkPushMeReply(res: HttpResponse): void {
  const text = res.text.trim();
  assertHttpOkWith(res, 'PushMe', { reason: text.slice(0, 300) || undefined });
  if (text.toLowerCase() === 'success') return;
  const body = jsonObjectOf(res);
  if (body && (numberField(body, 'code') === 0 || numberField(body, 'errcode') === 0)) return;
  const aboutKey = /push_?key/i.test(text);
  throw DeliveryError.permanent(
    `PushMe refused the message: ${text.slice(0, 300) || '(empty answer)'}` +
      (aboutKey ? ' (check pushKey: copy it again from the PushMe app)' : ''),
    { reply: replyOf(res) },
  );
}

/** PushMe (push.i-i.me or a self-hosted pushme-server): title and content to one push key. */
export function createPushMeAdapter() {
  return defineAdapter({
    type: 'pushme',
    label: 'PushMe',
    ...configOf(pushMeConfig),
    contentTypes: ['text', 'markdown', 'html'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    async send(config, given) {
      // Files reach the reader as links at the end of the content, in its format.
      const message = withAttachmentLinks(given, { images: true });
      const res = await httpRequest({
        // The root path: that is where the official clients post.
        url: `${config.serverUrl}/`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: pushMeFormBody(buildPushMeFields(config, message)),
        options: config,
      });
      checkPushMeReply(res);
      return { reply: replyOf(res) };
    },
  });
}
