import { z } from 'zod';

import { defineAdapter } from './channel-adapter';
import { assertHttpOk, httpOptionsSchema, httpRequest, replyOf } from './http-client';
import {
  DEFAULT_WEBHOOK_BODY,
  bodyEncoding,
  renderWebhookBody,
  renderWebhookUrl,
  withDeliveryFields,
  type WebhookValues,
} from './webhook-body';
import { signatureHeaders, signingSecretField, webhookMessageId } from './webhook-signing';

const METHODS = ['POST', 'PUT', 'PATCH', 'GET'] as const;

const sample: WebhookValues = {
  title: 't"\n',
  content: 'c"\n\\',
  url: 'https://x/?a=1&b="2"',
  format: 'text',
  priority: 5,
  repeats: 2,
};

export const webhookConfigSchema = z
  .object({
    url: z
      .string()
      .trim()
      .regex(/^https?:\/\/\S+$/, 'url must start with http:// or https://'),
    method: z.enum(METHODS).default('POST'),
    headers: z.record(z.string().min(1), z.string()).default({}),
    /** Headers that carry credentials (Authorization, API keys): sealed at rest, masked in the console. */
    secretHeaders: z.record(z.string().min(1), z.string()).default({}),
    body: z.string().max(100_000).default(DEFAULT_WEBHOOK_BODY),
    /** Standard Webhooks signing secret (`whsec_…`); when set, every delivery is signed. */
    signingSecret: signingSecretField,
  })
  .extend(httpOptionsSchema.shape)
  .strict()
  .superRefine((cfg, ctx) => {
    if (cfg.method === 'GET' || bodyEncoding(contentTypeOf(cfg.headers)) !== 'json') return;
    // A JSON body template that renders to invalid JSON would fail every delivery: refuse it now.
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
    configSchema: webhookConfigSchema,
    secretFields: ['secretHeaders', 'signingSecret'],
    destinationFields: ['url'],
    contentTypes: ['text', 'html', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    async send(config, message, runtime) {
      const values: WebhookValues = {
        title: message.title,
        content: message.content,
        url: message.url ?? '',
        format: message.contentType,
        priority: message.priority,
        repeats: message.repeats,
      };
      const headers = { ...config.headers, ...config.secretHeaders };
      if (!contentTypeOf(headers) && config.method !== 'GET')
        headers['Content-Type'] = 'application/json';
      const encoding = bodyEncoding(contentTypeOf(headers));
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
