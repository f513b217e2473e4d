/**
 * A failed delivery, tagged once, inside the adapter, as worth retrying (network, 5xx, 429,
 * platform rate limits) or not (bad credentials, rejected content).
 */
export class DeliveryError extends Error {
  readonly retryable: boolean;
  /** A wait the platform asked for (Retry-After, retry_after, DingTalk's 10-minute throttle). */
  readonly retryAfterMs: number | undefined;
  /** The platform's reply, truncated, for the send log. */
  readonly reply: string | undefined;

  constructor(
    message: string,
    opts: { retryable: boolean; retryAfterMs?: number; reply?: string },
  ) {
    super(message);
    this.name = 'DeliveryError';
    this.retryable = opts.retryable;
    this.retryAfterMs = opts.retryAfterMs;
    this.reply = opts.reply === undefined ? undefined : truncateReply(opts.reply);
  }

  static transient(
    message: string,
    opts: { retryAfterMs?: number; reply?: string } = {},
  ): DeliveryError {
    return new DeliveryError(message, { ...opts, retryable: true });
  }

  static permanent(message: string, opts: { reply?: string } = {}): DeliveryError {
    return new DeliveryError(message, { ...opts, retryable: false });
  }
}

export const MAX_REPLY_CHARS = 2000;

export function truncateReply(reply: string): string {
  return reply.length > MAX_REPLY_CHARS ? `${reply.slice(0, MAX_REPLY_CHARS)}…` : reply;
}
