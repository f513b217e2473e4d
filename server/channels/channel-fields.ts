import { createHash } from 'node:crypto';

/*
 * What adapters share beyond their config fields (those are declared in
 * contract/channel-kinds/fields.ts): URLs and rate-limit keys.
 */

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
