/**
 * A failed delivery, tagged once, inside the adapter, as worth retrying (network, 5xx, 429,
 * platform rate limits) or not (bad credentials, rejected content); or, with `deferUntil`, no
 * failure at all: the delivery must wait until then (DeliveryError.deferred).
 */
export class DeliveryError extends Error {
  readonly retryable: boolean;
  /** A wait the platform asked for (Retry-After, retry_after, DingTalk's 10-minute throttle). */
  readonly retryAfterMs: number | undefined;
  /** The platform's reply, truncated, for the send log. */
  readonly reply: string | undefined;
  /**
   * Set by `deferred`: the epoch ms (the delivery clock) before which the delivery must not be
   * tried again. Not a failure: no attempt is spent, and the message is the reason shown.
   */
  readonly deferUntil: number | undefined;
  /** Set by `suppressed`: not sent on purpose (a person's quiet hours); no failure either. */
  readonly suppressed: boolean;

  constructor(
    message: string,
    opts: {
      retryable: boolean;
      retryAfterMs?: number;
      reply?: string;
      deferUntil?: number;
      suppressed?: boolean;
    },
  ) {
    super(message);
    this.name = 'DeliveryError';
    this.retryable = opts.retryable;
    this.retryAfterMs = opts.retryAfterMs;
    this.reply = opts.reply === undefined ? undefined : truncateReply(opts.reply);
    this.deferUntil = opts.deferUntil;
    this.suppressed = opts.suppressed === true;
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

  /**
   * "Not before `untilMs`": the delivery goes back to waiting until then without spending an
   * attempt, `reason` shown as its lastError meanwhile (docs/architecture.md "Deferred
   * deliveries"). It never fails or gives up a delivery however often it comes: use it only for
   * a wait that ends by itself (a daily quota, quiet hours), never for a fault.
   */
  static deferred(reason: string, untilMs: number, opts: { reply?: string } = {}): DeliveryError {
    return new DeliveryError(reason, { ...opts, retryable: true, deferUntil: untilMs });
  }

  /**
   * "Not at all, on purpose": the delivery ends `suppressed` with `reason` (a quiet-hours drop,
   * docs/architecture.md "Quiet hours"). Never retried.
   */
  static suppressed(reason: string): DeliveryError {
    return new DeliveryError(reason, { retryable: false, suppressed: true });
  }
}

export const MAX_REPLY_CHARS = 2000;

export function truncateReply(reply: string): string {
  return reply.length > MAX_REPLY_CHARS ? `${reply.slice(0, MAX_REPLY_CHARS)}…` : reply;
}
