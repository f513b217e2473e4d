import { z } from 'zod';

import { described, named } from '../common';
import { controlCharMessage, findControlChar } from '../control-chars';
import { LIMITS } from '../limits';
import { parsePriority, PRIORITY_NAMES } from '../priority';

/*
 * What the two send APIs take (docs/send-api.md). The server parses every request with these
 * (V2's usual requests first through a zod-free equivalent, server/features/sending/
 * plain-v2-request.ts, which a test holds to v2RequestSchema), and the OpenAPI document
 * describes them.
 */

/**
 * Every string of a send is refused whole when it holds a control character (NUL breaks the
 * database and the channels): the msg names the field, e.g. "placeholders.name: contains…".
 */
const refuseControlChars = (s: string, ctx: z.RefinementCtx) => {
  const found = findControlChar(s);
  // Stryker disable next-line StringLiteral: the answer quotes an issue's path and message, never its code
  if (found) ctx.addIssue({ code: 'custom', message: controlCharMessage(found) });
};

/** z.string() that refuses control characters. */
const text = (params?: Parameters<typeof z.string>[0]) =>
  z.string(params).superRefine(refuseControlChars);

const requiredString = (what: string) =>
  text({
    error: (iss) =>
      iss.input === undefined || iss.input === null ? 'is required' : `must be a ${what}`,
  });

/**
 * An optional field where `null` means "not sent": typed clients (Go, Java, C#) serialise the
 * fields they leave empty as null. Parsed, null is left out like a missing field.
 */
const optional = <T extends z.ZodType>(schema: T) =>
  schema
    .nullish()
    .transform((v) => v ?? undefined)
    .optional();

const title = requiredString('string')
  .trim()
  .min(1, 'must not be empty')
  .max(LIMITS.titleChars, `must be at most ${LIMITS.titleChars} characters`);

const body = text({ error: 'must be a string' })
  .max(LIMITS.contentChars, `must be at most ${LIMITS.contentChars} characters`)
  .nullish();

const stringList = (max: number, itemMax: number) =>
  z
    .array(text({ error: 'must be strings' }).trim().max(itemMax), {
      error: 'must be an array of strings',
    })
    .max(max, `at most ${max} entries`);

const recipients = z
  .array(text({ error: 'must be strings' }).trim().min(1, 'must not be empty').max(320), {
    error: 'must be an array of strings',
  })
  .max(LIMITS.recipients, `at most ${LIMITS.recipients} recipients per request`);

const url = text({ error: 'must be a string' })
  .trim()
  .max(LIMITS.urlChars, `must be at most ${LIMITS.urlChars} characters`)
  .nullish();

/**
 * `priority`: 1 (min) … 5 (max) or ntfy's names; parsed to its number. Left out, each channel
 * uses its own default (docs/send-api.md "Priority").
 */
const priority = z
  .union([z.number(), z.string()], {
    error: `must be 1 to 5 or one of ${Object.keys(PRIORITY_NAMES).join(', ')}`,
  })
  .transform((value, ctx) => {
    const parsed = parsePriority(value);
    if (parsed === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `must be 1 to 5 or one of ${Object.keys(PRIORITY_NAMES).join(', ')}`,
      });
      return z.NEVER;
    }
    return parsed;
  });

/** `dedupKey`: sends with the same key on one task or template within the window are not delivered again. */
const dedupKey = text({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(LIMITS.dedupKeyChars, `must be at most ${LIMITS.dedupKeyChars} characters`);

/** `digestKey`: which digest of a collecting task or template a send joins (issue 46 §2). */
const digestKey = text({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(LIMITS.dedupKeyChars, `must be at most ${LIMITS.dedupKeyChars} characters`);

/** `dedupWindow`: seconds, 300 when left out, at most a day. */
const dedupWindow = z
  .number({ error: 'must be a whole number of seconds' })
  .int('must be a whole number of seconds')
  .min(1, 'must be at least 1 second')
  .max(
    LIMITS.dedupWindowMaxSeconds,
    `must be at most ${LIMITS.dedupWindowMaxSeconds} seconds (a day)`,
  );

/**
 * `attachments`: files Herald fetches by URL and sends with the message (issue 43 §2); the
 * count, size and total limits are the install's settings (attachments.*), checked on arrival.
 */
const attachmentsByUrl = z
  .array(
    z.object(
      {
        url: requiredString('string')
          .trim()
          .min(1, 'must not be empty')
          .max(LIMITS.urlChars, `must be at most ${LIMITS.urlChars} characters`),
        filename: optional(text({ error: 'must be a string' }).trim().max(255)),
        mime: optional(text({ error: 'must be a string' }).trim().max(255)),
      },
      { error: 'must be an object {url, filename?, mime?}' },
    ),
    { error: 'must be an array of {url, filename?, mime?}' },
  )
  .max(100, 'at most 100 entries');

/** The fields both send APIs (and the hooks) take beside their own. */
const sendExtras = {
  attachments: described(
    'Files to send with the message, fetched by Herald: [{url, filename?, mime?}] (or upload them: multipart/form-data with payload_json and files[] parts)',
    optional(attachmentsByUrl),
  ),
  priority: described(
    "1 (min) to 5 (max), or min, low, default, high, max, urgent; each channel maps it its own way (left out: each channel's default)",
    optional(priority),
  ),
  dedupKey: described(
    'Alert storms: further sends with this key on the same task or template within dedupWindow are recorded as suppressed, not delivered',
    optional(dedupKey),
  ),
  dedupWindow: described(
    'Seconds the window of a dedupKey stays open from its first send: 300 when left out, at most 86400',
    optional(dedupWindow),
  ),
  digestKey: described(
    'Digests: where the task, template or instance collects its messages, sends with the same key are collected into one digest (left out: one digest per task or template)',
    optional(digestKey),
  ),
};

/** V1: the caller sends the content on every call. Unknown fields are ignored. */
export const v1RequestSchema = named(
  'V1Request',
  z.object({
    /** The task token (wins over task_id). */
    token: optional(text({ error: 'must be a string' }).trim().max(512)),
    /** The task's plaintext id, where Settings allow it. */
    task_id: optional(
      z.union([text().trim().max(32), z.number().int()], {
        error: 'must be a string or an integer',
      }),
    ),
    title,
    text: body,
    html: body,
    markdown: body,
    at_mobiles: optional(stringList(LIMITS.mentions, 32)),
    at_userids: optional(stringList(LIMITS.mentions, 128)),
    // Message Nest's server reads at_user_ids; its docs say at_userids: both are accepted.
    at_user_ids: optional(stringList(LIMITS.mentions, 128)),
    at_all: optional(z.boolean({ error: 'must be true or false' })),
    recipients: optional(recipients),
    /** Kept with hosted messages and sent where a channel supports a link. */
    url,
    mode: optional(z.enum(['sync', 'async'], { error: 'must be "sync" or "async"' })),
    ...sendExtras,
  }),
);
export type V1Request = z.infer<typeof v1RequestSchema>;

/**
 * Placeholder values by key. Keys are checked before values, so no msg ever quotes a key that
 * holds a control character.
 */
const placeholderValues = z.preprocess(
  (value, ctx) => {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a non-object has no keys with control characters, and null never gets here (optional() takes it)
    if (typeof value !== 'object' || value === null) return value;
    for (const key of Object.keys(value)) {
      const found = findControlChar(key);
      if (found) {
        // Stryker disable next-line StringLiteral: the answer quotes an issue's path and message, never its code
        ctx.addIssue({ code: 'custom', message: `a key ${controlCharMessage(found)}` });
        return value;
      }
    }
    return value;
  },
  z.record(z.string(), z.union([text(), z.number(), z.boolean(), z.null()]), {
    error: 'must be an object of string values',
  }),
);

/** V2's `text`: a body's worth of text, as V1's `text` is. */
const v2Text = text({ error: 'must be a string' }).max(
  LIMITS.contentChars,
  `must be at most ${LIMITS.contentChars} characters`,
);

/** V2: content lives in the template; the caller sends the token, a title and values. */
export const v2RequestSchema = named(
  'V2Request',
  z.object({
    token: requiredString('string').trim().min(1, 'is required').max(512),
    title,
    placeholders: optional(placeholderValues),
    text: described(
      "The message's text (what `herald send --text` sends): fills the template's {{text}}; a template without one sends it as its content when no other placeholder values are given, else leaves it out with a warning (placeholders.text wins)",
      optional(v2Text),
    ),
    recipients: optional(recipients),
    url,
    ...sendExtras,
  }),
);
export type V2Request = z.infer<typeof v2RequestSchema>;

const keyLength = `must be 1 to ${LIMITS.idempotencyKeyChars} characters`;

/** The `Idempotency-Key` header both send APIs take (1 to 255 characters, trimmed). */
export const idempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .trim()
    .min(1, keyLength)
    .max(LIMITS.idempotencyKeyChars, keyLength)
    .optional(),
});
