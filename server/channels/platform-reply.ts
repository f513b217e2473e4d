import { DeliveryError } from './delivery-error';
import { assertHttpOk, type HttpResponse } from './http-client';

/** A JSON object body, or undefined for anything else (text, arrays, no body). */
export function jsonObjectOf(res: HttpResponse): Record<string, unknown> | undefined {
  const body = res.json;
  return body && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : undefined;
}

/** A non-empty string field of a JSON object, else undefined. */
export function stringField(
  obj: Record<string, unknown> | undefined,
  key: string,
): string | undefined {
  const value = obj?.[key];
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** A finite number field of a JSON object, else undefined. */
export function numberField(
  obj: Record<string, unknown> | undefined,
  key: string,
): number | undefined {
  const value = obj?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export interface FailureDetail {
  /** The platform's own words for the failure, put in the error message the user sees. */
  reason?: string;
  /** What to do about it, when the platform's words do not say. */
  hint?: string;
  /** A wait the platform gave in its body; a Retry-After header takes precedence. */
  retryAfterMs?: number;
  /** Overrides the status rule, for the few replies whose status misleads (APNs via Bark). */
  retryable?: boolean;
}

/**
 * The shared status rule of `assertHttpOk` (2xx ok; 429 and 5xx transient; other statuses
 * permanent; Retry-After honoured) plus what an HTTP-status platform says in its body.
 */
export function assertHttpOkWith(
  res: HttpResponse,
  platform: string,
  detail: FailureDetail = {},
): void {
  try {
    assertHttpOk(res, platform);
  } catch (err) {
    if (!(err instanceof DeliveryError)) throw err;
    const message =
      err.message +
      (detail.reason ? `: ${detail.reason}` : '') +
      (detail.hint ? ` (${detail.hint})` : '');
    throw new DeliveryError(message, {
      retryable: detail.retryable ?? err.retryable,
      retryAfterMs: err.retryAfterMs ?? detail.retryAfterMs,
      reply: err.reply,
    });
  }
}

/** Seconds from a platform body (may be fractional) to whole milliseconds. */
export function secondsToMs(seconds: number | undefined): number | undefined {
  return seconds !== undefined && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
}

/**
 * A message the platform would refuse (or silently mangle) for its size. It is refused here,
 * before any request, as permanent: a retry cannot make it shorter, and it is never cut.
 */
export function limitExceeded(
  platform: string,
  measured: number,
  limit: number,
  unit: string,
): DeliveryError {
  return DeliveryError.permanent(
    `message too long for ${platform}: ${measured} ${unit}, the limit is ${limit}; shorten the content`,
  );
}

/** UTF-8 size of a string. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Joins a title line, the body and an optional trailing line for platforms without a title
 * field, leaving out whichever is empty.
 */
export function joinLines(...parts: Array<string | null | undefined>): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join('\n');
}
