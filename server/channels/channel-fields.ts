import { createHash } from 'node:crypto';

import { z } from 'zod';

const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s?#]*$/;

// Console forms send '' for a field left empty; treat that exactly like an absent field.
const emptyToUndefined = (value: unknown): unknown => (value === '' ? undefined : value);

/**
 * A self-hostable server's base URL (no query or fragment). Trailing slashes are dropped so
 * paths can be appended; an empty or missing value means `fallback` (the public server).
 */
export function serverUrlField(fallback: string) {
  return z.preprocess(emptyToUndefined, requiredServerUrlField().default(fallback));
}

/** A base URL the user must give (the platform has no public server). */
export function requiredServerUrlField() {
  return z
    .string()
    .trim()
    .regex(HTTP_URL, 'serverUrl must be an http:// or https:// URL without ?query or #fragment')
    .transform((url) => url.replace(/\/+$/, ''));
}

/** A full webhook URL as copied from the platform (it usually embeds a secret token). */
export function webhookUrlField(platform: string) {
  return z
    .string()
    .trim()
    .regex(/^https?:\/\/\S+$/, `webhookUrl must be the ${platform} webhook URL (https://…)`);
}

/** An optional free-text field; '' counts as not set. */
export function optionalText(max: number) {
  return z.preprocess(emptyToUndefined, z.string().trim().min(1).max(max).optional());
}

/** Appends a path to a base URL that may carry its own path prefix (a reverse proxy). */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * A pacing key for a platform rate limit. The parts are usually secrets (a webhook URL, a
 * bot token), so only a hash of them is kept in memory and in any log line.
 */
export function rateLimitKey(kind: string, ...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);
  return `${kind}:${digest}`;
}
