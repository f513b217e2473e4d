/**
 * The size limits of what a client sends (docs/send-api.md, "Common rules"): each is answered
 * with a 400 naming the field, never a silent cut. The send APIs' and schedules' schemas check
 * them; the server also reads the body and idempotency limits from here.
 */
export const LIMITS = {
  bodyBytes: 1024 * 1024,
  titleChars: 1000,
  contentChars: 200_000,
  /** A V2 send's bodies together, after placeholders are filled. */
  sendContentChars: 500_000,
  recipients: 100,
  mentions: 100,
  urlChars: 2048,
  idempotencyKeyChars: 255,
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  /** A send's `dedupKey` (issue 24, dedup for alert storms). */
  dedupKeyChars: 200,
  /** A send's `dedupWindow`, in seconds: 300 when left out, at most a day. */
  dedupWindowDefaultSeconds: 300,
  dedupWindowMaxSeconds: 24 * 60 * 60,
} as const;
