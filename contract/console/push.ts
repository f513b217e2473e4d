import { z } from 'zod';

import { CONSOLE_BASE, idParams, named, nothing, timestampSchema } from '../common';
import { route } from '../route';

/**
 * Web Push to a person's own devices (issue 43 §1, docs/reader.md): the reader subscribes a
 * browser with the push service's endpoint and keys, and Herald pushes each hosted message the
 * person may read and the subscription's filter lets through.
 */

/** A key or secret of the browser's PushSubscription, base64url as `getKey()` gives it. */
const base64urlKey = (what: string, min: number, max: number) =>
  z
    .string({ error: 'is required' })
    .trim()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `must be the ${what} in base64url`)
    .min(min, `is too short for the ${what}`)
    .max(max, `is too long for the ${what}`);

/** The browser's `PushSubscription.toJSON().keys`. */
export const pushKeysSchema = z
  .object({
    /** The subscription's ECDH P-256 public key (65 bytes uncompressed: 87 characters). */
    p256dh: base64urlKey('p256dh key', 86, 90),
    /** The 16-byte authentication secret (22 characters). */
    auth: base64urlKey('auth secret', 22, 24),
  })
  .strict();

/** Which sources' messages a subscription wants; `all`, or the tasks and templates listed. */
export const pushFilterSchema = z
  .object({
    /** `all` (the default), or the ids of the templates whose messages are pushed. */
    templates: z
      .union([z.literal('all'), z.array(z.number().int().positive()).max(500)])
      .default('all'),
    /** `all` (the default), or the ids of the tasks whose messages are pushed. */
    tasks: z
      .union([z.literal('all'), z.array(z.number().int().positive()).max(500)])
      .default('all'),
    /** Messages below this priority (1 … 5; a message without one counts as 3) are not pushed. */
    minPriority: z
      .number({ error: 'must be 1 to 5' })
      .int('must be 1 to 5')
      .min(1, 'must be 1 to 5')
      .max(5, 'must be 1 to 5')
      .default(1),
  })
  .strict();
export type PushFilter = z.infer<typeof pushFilterSchema>;

export const createPushSubscriptionBody = z
  .object({
    /** The push service's URL for this browser (`PushSubscription.endpoint`). */
    endpoint: z.string({ error: 'is required' }).trim().min(1, 'is required').max(2000),
    keys: pushKeysSchema,
    /** What the person calls this device ("Work laptop", "Phone"). */
    deviceName: z.string({ error: 'is required' }).trim().min(1, 'is required').max(100),
    filter: pushFilterSchema.default({ templates: 'all', tasks: 'all', minPriority: 1 }),
  })
  .strict();

/** A subscription as its owner sees it (the keys are not sent back). */
export const pushSubscriptionSchema = named(
  'PushSubscription',
  z.strictObject({
    id: z.number().int().positive(),
    deviceName: z.string(),
    endpoint: z.string(),
    filter: pushFilterSchema,
    createdAt: timestampSchema,
    /** The last push the push service accepted for it; null: none yet. */
    lastPushAt: timestampSchema.nullable(),
  }),
);
export type PushSubscriptionInfo = z.infer<typeof pushSubscriptionSchema>;

export const pushKeySchema = z.strictObject({
  /** The VAPID public key, base64url (65 bytes uncompressed P-256): `applicationServerKey`. */
  publicKey: z.string(),
});

export const pushRoutes = {
  key: route({
    method: 'get',
    path: `${CONSOLE_BASE}/push/key`,
    summary: "Herald's VAPID public key, for PushManager.subscribe's applicationServerKey",
    response: pushKeySchema,
  }),
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/push/subscriptions`,
    summary: "The signed-in person's own push subscriptions",
    response: z.strictObject({ items: z.array(pushSubscriptionSchema) }),
  }),
  create: route({
    method: 'post',
    path: `${CONSOLE_BASE}/push/subscriptions`,
    summary:
      'Subscribe this browser; the same endpoint again replaces its keys, name and filter (answers the same id)',
    body: createPushSubscriptionBody,
    response: pushSubscriptionSchema,
    refusals: {
      400: 'the endpoint is not a known push service (or HERALD_WEB_PUSH_ENDPOINTS), or a key is malformed',
    },
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/push/subscriptions/{id}`,
    summary: 'Remove one of your push subscriptions',
    params: idParams,
    response: nothing,
    refusals: { 404: 'no such subscription of yours' },
  }),
};
