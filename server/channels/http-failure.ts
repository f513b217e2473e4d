import { DeliveryError, truncateReply } from './delivery-error';
import type { HttpResponse } from './http-client';
import { localNetworkHint } from './local-network-hint';

/**
 * Herald's own reading of an HTTP exchange, whatever client carried it: a transport failure
 * (socket error, timeout) or a status becomes a DeliveryError, transient or permanent.
 */

/**
 * Folds socket errors (with nested causes) and the timeout into one transient DeliveryError; on
 * macOS, one the Local Network setting caused says where to allow it.
 */
export function transportError(
  err: unknown,
  url: string,
  platform: NodeJS.Platform = process.platform,
): DeliveryError {
  const host = safeHost(url);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ETIMEDOUT' || code === 'ECONNABORTED') {
    return DeliveryError.transient(`timed out talking to ${host}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : '';
  const hint = localNetworkHint(err, safeHostname(url), platform);
  return DeliveryError.transient(
    `network error talking to ${host}: ${code && !message.includes(code) ? code : ''} ${message}${cause && cause !== message ? ` (${cause})` : ''}${hint ? `; ${hint}` : ''}`
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function safeHostname(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/** Parses a Retry-After header (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

/**
 * The common rule for HTTP-status platforms: 2xx succeeds; 429 and 5xx are transient
 * (honouring Retry-After); any other status is permanent. Throws on failure.
 */
export function assertHttpOk(res: HttpResponse, what: string): void {
  if (res.status >= 200 && res.status < 300) return;
  const reply = truncateReply(`HTTP ${res.status} ${res.text}`.trim());
  if (res.status === 429 || res.status >= 500) {
    throw DeliveryError.transient(`${what} answered HTTP ${res.status}`, {
      reply,
      retryAfterMs: retryAfterMs(res.headers['retry-after']),
    });
  }
  throw DeliveryError.permanent(`${what} answered HTTP ${res.status}`, { reply });
}

/** A short reply line for the log. */
export function replyOf(res: HttpResponse): string {
  return truncateReply(`HTTP ${res.status} ${res.text}`.trim());
}
