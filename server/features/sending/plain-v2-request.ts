import { findControlChar, LIMITS, type V2Request } from '../../../contract';

/*
 * The V2 fast path in front of v2RequestSchema (contract/send/requests.ts, where the send APIs'
 * request schemas live): the usual requests parsed without zod, to zod's result.
 */

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
 * is logged as JSON): test/unit/server/features/sending/plain-v2-request.test.ts compares the two on
 * generated requests.
 */
export function plainV2Request(input: Record<string, unknown>): V2Request | undefined {
  const token = plainTrimmed(input.token, 512);
  const title = plainTrimmed(input.title, LIMITS.titleChars);
  if (token === undefined || title === undefined) return undefined;
  // Priority, dedup, digest keys and `text` (herald send's) are rarer: zod parses them and words
  // what it refuses.
  if (
    'priority' in input ||
    'dedupKey' in input ||
    'dedupWindow' in input ||
    'digestKey' in input ||
    'text' in input ||
    'attachments' in input
  ) {
    return undefined;
  }
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
