import { z } from 'zod';

import { LIMITS } from '../../config/settings-schema';
import { controlCharMessage, findControlChar } from '../../lib/control-chars';

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
 * fields they leave empty as null.
 */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null ? undefined : v), schema.optional());

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

/** V1: the caller sends the content on every call. Unknown fields are ignored. */
export const v1RequestSchema = z.object({
  token: optional(text({ error: 'must be a string' }).trim().max(512)),
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
  url,
  mode: optional(z.enum(['sync', 'async'], { error: 'must be "sync" or "async"' })),
});
export type V1Request = z.infer<typeof v1RequestSchema>;

/** Keys are checked before values, so no msg ever quotes a key that holds a control character. */
const placeholderKeys = z.unknown().superRefine((value, ctx) => {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a non-object has no keys with control characters, and null never gets here (optional() makes it undefined)
  if (typeof value !== 'object' || value === null) return;
  for (const key of Object.keys(value)) {
    const found = findControlChar(key);
    if (found) {
      // Stryker disable next-line StringLiteral: the answer quotes an issue's path and message, never its code
      ctx.addIssue({ code: 'custom', message: `a key ${controlCharMessage(found)}` });
      return;
    }
  }
});

/** V2: content lives in the template; the caller sends the token, a title and values. */
export const v2RequestSchema = z.object({
  token: requiredString('string').trim().min(1, 'is required').max(512),
  title,
  placeholders: optional(
    placeholderKeys.pipe(
      z.record(z.string(), z.union([text(), z.number(), z.boolean(), z.null()]), {
        error: 'must be an object of string values',
      }),
    ),
  ),
  recipients: optional(recipients),
  url,
});
export type V2Request = z.infer<typeof v2RequestSchema>;

const hasControlChar = (s: string) => findControlChar(s) !== undefined;

/** A string v2RequestSchema accepts as `text().trim().min(1).max(max)`, trimmed; else undefined. */
function plainTrimmed(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string' || hasControlChar(value)) return undefined;
  const trimmed = value.trim();
  return trimmed.length >= 1 && trimmed.length <= max ? trimmed : undefined;
}

/** Placeholder values v2RequestSchema takes as they are; undefined for anything else. */
function plainPlaceholders(
  value: object,
): Record<string, string | number | boolean | null> | undefined {
  if (Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const out: Record<string, string | number | boolean | null> = {};
  for (const key of Object.keys(value)) {
    // `__proto__` would set the copy's prototype: zod's record decides what it makes of it.
    if (key === '__proto__' || hasControlChar(key)) return undefined;
    const item = (value as Record<string, unknown>)[key];
    if (typeof item === 'string') {
      if (hasControlChar(item)) return undefined;
    } else if (
      item !== null &&
      typeof item !== 'boolean' &&
      !(typeof item === 'number' && Number.isFinite(item))
    ) {
      return undefined;
    }
    out[key] = item as string | number | boolean | null;
  }
  return out;
}

/**
 * v2RequestSchema's result for the requests scripts send every time — a token, a title, flat
 * placeholder values, maybe a URL — built without zod's machinery, which costs a send more than
 * everything else it checks; undefined for anything else (recipients included), which zod then
 * parses and, when it refuses, words. The result is zod's to the key and its order (the request
 * is logged as JSON): send-schemas-fast.test.ts compares the two on generated requests.
 */
export function plainV2Request(input: Record<string, unknown>): V2Request | undefined {
  const token = plainTrimmed(input.token, 512);
  const title = plainTrimmed(input.title, LIMITS.titleChars);
  if (token === undefined || title === undefined) return undefined;
  const out: V2Request = { token, title };
  if ('placeholders' in input) {
    const value = input.placeholders;
    if (value === null || value === undefined) out.placeholders = undefined;
    else if (typeof value !== 'object') return undefined;
    else {
      const placeholders = plainPlaceholders(value);
      if (placeholders === undefined) return undefined;
      out.placeholders = placeholders;
    }
  }
  if ('recipients' in input) {
    if (input.recipients !== null && input.recipients !== undefined) return undefined;
    out.recipients = undefined;
  }
  if ('url' in input) {
    const value = input.url;
    if (value === null || value === undefined) out.url = value;
    else {
      if (typeof value !== 'string' || hasControlChar(value)) return undefined;
      const trimmed = value.trim();
      if (trimmed.length > LIMITS.urlChars) return undefined;
      out.url = trimmed;
    }
  }
  return out;
}
