import type { z } from 'zod';

import { webhookConfig } from '../../contract/channel-kinds/webhook';
import { appendAttachmentLinks } from './attachment-links';
import { configOf, defineAdapter } from './channel-adapter';
import { assertHttpOk, httpRequest, replyOf } from './http-client';
import {
  DEFAULT_WEBHOOK_BODY,
  bodyEncoding,
  mentionsAttachments,
  renderWebhookBody,
  renderWebhookUrl,
  withDeliveryFields,
  type WebhookValues,
} from './webhook-body';
import { signatureHeaders, webhookMessageId } from './webhook-signing';

const sample: WebhookValues = {
  title: 't"\n',
  content: 'c"\n\\',
  url: 'https://x/?a=1&b="2"',
  format: 'text',
  priority: 5,
  repeats: 2,
};

/**
 * The declared config, and one check the contract cannot make (it needs the body renderer): a
 * JSON body template must still be JSON once filled in, or every delivery would fail.
 */
export const webhookConfigSchema = webhookConfig.schema.superRefine((cfg, ctx) => {
  if (cfg.method === 'GET' || bodyEncoding(contentTypeOf(cfg.headers)) !== 'json') return;
  try {
    JSON.parse(renderWebhookBody(cfg.body, sample, 'json'));
  } catch (err) {
    ctx.addIssue({
      code: 'custom',
      path: ['body'],
      message: `body is not valid JSON once filled in: ${(err as Error).message}`,
    });
  }
});
export type WebhookConfig = z.infer<typeof webhookConfigSchema>;

function contentTypeOf(headers: Record<string, string>): string | undefined {
  const entry = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type');
  return entry?.[1];
}

/** A generic HTTP request whose body is a template; any 2xx is success. */
export function createWebhookAdapter() {
  return defineAdapter({
    type: 'webhook',
    label: 'Custom webhook',
    ...configOf(webhookConfig),
    configSchema: webhookConfigSchema,
    contentTypes: ['text', 'html', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    async send(config, message, runtime) {
      const files = message.attachments ?? [];
      const headers = { ...config.headers, ...config.secretHeaders };
      if (!contentTypeOf(headers) && config.method !== 'GET')
        headers['Content-Type'] = 'application/json';
      const encoding = bodyEncoding(contentTypeOf(headers));
      // The default JSON body and a template with {{attachments}} carry the files as data;
      // any other request would drop them, so there the content ends with their links.
      const carried =
        (config.method !== 'GET' &&
          ((config.body === DEFAULT_WEBHOOK_BODY && encoding === 'json') ||
            mentionsAttachments(config.body))) ||
        mentionsAttachments(config.url);
      const values: WebhookValues = {
        title: message.title,
        content: carried
          ? message.content
          : appendAttachmentLinks(message.content, files, message.contentType, { images: true }),
        url: message.url ?? '',
        format: message.contentType,
        priority: message.priority,
        repeats: message.repeats,
        attachments: files.map((a) => ({
          url: a.url,
          name: a.filename,
          type: a.mime,
          size: a.size,
        })),
      };
      let body =
        config.method === 'GET' ? undefined : renderWebhookBody(config.body, values, encoding);
      if (body !== undefined && encoding === 'json' && config.body === DEFAULT_WEBHOOK_BODY)
        body = withDeliveryFields(body, values);
      if (config.signingSecret) {
        Object.assign(
          headers,
          signatureHeaders({
            secret: config.signingSecret,
            id: webhookMessageId(runtime.installId, message.deliveryId),
            timestamp: Math.floor(runtime.clock.now() / 1000),
            body: body ?? '',
          }),
        );
      }
      const res = await httpRequest({
        method: config.method,
        url: renderWebhookUrl(config.url, values),
        headers,
        body,
        options: config,
      });
      assertHttpOk(res, 'webhook');
      return { reply: replyOf(res) };
    },
  });
}
