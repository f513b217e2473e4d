import { z } from 'zod';

import { declareChannelConfig } from './declare';
import { emptyToUndefined, httpOptionsSchema, httpOptionsUi } from './fields';

/** The markers a custom webhook's body and URL may use. */
export const WEBHOOK_FIELDS = [
  'title',
  'content',
  'url',
  'format',
  'priority',
  'repeats',
  'attachments',
] as const;
export const WEBHOOK_METHODS = ['POST', 'PUT', 'PATCH', 'GET'] as const;
export const DEFAULT_WEBHOOK_BODY =
  '{"title":"{{title}}","content":"{{content}}","url":"{{url}}","format":"{{format}}"}';

/**
 * Signed deliveries follow the Standard Webhooks spec (standardwebhooks.com): the secret is
 * `whsec_` and the base64 of 24 to 64 random bytes (server/channels/webhook-signing.ts signs).
 */
export const SIGNING_SECRET_PREFIX = 'whsec_';
export const SIGNING_SECRET_MIN_BYTES = 24;
export const SIGNING_SECRET_MAX_BYTES = 64;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** How many bytes a well-formed secret's key has, or null: the base64 after `whsec_`. */
export function signingSecretBytes(secret: string): number | null {
  if (!secret.startsWith(SIGNING_SECRET_PREFIX)) return null;
  const encoded = secret.slice(SIGNING_SECRET_PREFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return null;
  // atob, not Buffer: the contract runs in the browser too.
  const bytes = atob(encoded).length;
  return bytes >= SIGNING_SECRET_MIN_BYTES && bytes <= SIGNING_SECRET_MAX_BYTES ? bytes : null;
}

/** The optional `signingSecret` config field; '' means "not signed". */
export const signingSecretField = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .trim()
    .refine(
      (secret) => signingSecretBytes(secret) !== null,
      `signingSecret must be "${SIGNING_SECRET_PREFIX}" followed by the base64 of ${SIGNING_SECRET_MIN_BYTES} to ${SIGNING_SECRET_MAX_BYTES} random bytes; press "Generate" in the console, or leave it empty to send unsigned`,
    )
    .optional(),
);

/**
 * Custom webhook: any HTTP request whose URL and body are templates over the message. The
 * server adds one check of its own: a JSON body must still be JSON once filled in.
 */
export const webhookConfig = declareChannelConfig({
  schema: z
    .object({
      url: z
        .string()
        .trim()
        .regex(/^https?:\/\/\S+$/, 'url must start with http:// or https://'),
      method: z.enum(WEBHOOK_METHODS).default('POST'),
      headers: z.record(z.string().min(1), z.string()).default({}),
      /** Headers that carry credentials (Authorization, API keys): sealed at rest, masked in the console. */
      secretHeaders: z.record(z.string().min(1), z.string()).default({}),
      body: z.string().max(100_000).default(DEFAULT_WEBHOOK_BODY),
      /** Standard Webhooks signing secret (`whsec_…`); when set, every delivery is signed. */
      signingSecret: signingSecretField,
    })
    .extend(httpOptionsSchema.shape)
    .strict(),
  fields: {
    url: { placeholder: 'https://example.com/hook', destination: true },
    method: { formDefault: 'POST' },
    headers: {},
    secretHeaders: { secret: true, help: 'channelHelp.webhookSecretHeaders' },
    body: {
      multiline: true,
      formDefault: DEFAULT_WEBHOOK_BODY,
      help: 'channelHelp.webhookBody',
      // A GET sends no body.
      dependsOn: { key: 'method', noneOf: ['GET'] },
    },
    // Generated in the browser and shown once: no generic input does that.
    signingSecret: {
      secret: true,
      widget: 'signingSecret',
      help: 'channelHelp.webhookSigningSecret',
    },
    ...httpOptionsUi,
  },
  notes: [
    {
      id: 'webhook-markers',
      text: 'channelHelp.webhookMarkers',
      // {…} is i18n syntax: the markers go in as a value.
      params: { markers: WEBHOOK_FIELDS.map((f) => `{{${f}}}`).join(' ') },
      tone: 'hint',
      field: 'body',
    },
  ],
});
