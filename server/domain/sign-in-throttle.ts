/**
 * The sign-in throttle's rules, shared by the in-memory throttle (features/auth/login-throttle.ts)
 * and the PostgreSQL one several processes share (db/postgres/shared-limits.ts): which keys a try
 * counts against, and how long a key waits after its failures.
 */
/** How a key's failures turn into waits; exported so tests and docs name the same numbers. */
export interface ThrottlePolicy {
  /** Failures a key may have before each further try must wait. */
  freeFailures: number;
  /** The first wait; each further failure doubles it. */
  baseDelayMs: number;
  /** The longest wait: the owner never waits longer than this for the right password. */
  maxDelayMs: number;
  /** A key with no failure for this long starts over. */
  forgetAfterMs: number;
}

export const USER_POLICY: ThrottlePolicy = {
  freeFailures: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 5 * 60_000,
  forgetAfterMs: 60 * 60_000,
};

/** Several people may share one address (an office behind NAT), so it gets more free tries. */
export const ADDRESS_POLICY: ThrottlePolicy = { ...USER_POLICY, freeFailures: 20 };

/** A key under a named policy; the caller says what it counts (a username, an address). */
export interface ThrottleKey {
  key: string;
  policy: ThrottlePolicy;
}

/** The client address's key, shared by every kind of secret it guesses. */
export function addressKey(address: string | undefined): ThrottleKey {
  return { key: `addr:${address ?? 'unknown'}`, policy: ADDRESS_POLICY };
}

/** The keys of a password try: the username, and the client address as well. */
export function passwordKeys(username: string, address: string | undefined): ThrottleKey[] {
  return [
    { key: `user:${username.trim().toLowerCase()}`, policy: USER_POLICY },
    addressKey(address),
  ];
}

/** One key's failures: what the throttle remembers, in memory or in the database. */
export interface KeyState {
  failures: number;
  lastFailureAt: number;
  notBefore: number;
}

/**
 * How a try is throttled, wherever the failures are kept: LoginThrottle in this process's
 * memory (SQLite, one process), or the database on PostgreSQL, where several processes must
 * count one guesser's failures together (server/db/postgres/shared-limits.ts).
 */
export interface SignInThrottle {
  /** As LoginThrottle.begin: 0 and the try counted as a failure, or the wait in ms. */
  begin(keys: ThrottleKey[]): number | Promise<number>;
  succeed(keys: ThrottleKey[]): void | Promise<void>;
}

/** The wait a key's record imposes now; null when the record is old enough to forget. */
export function waitOf(record: KeyState, policy: ThrottlePolicy, now: number): number | null {
  if (now - record.lastFailureAt >= policy.forgetAfterMs) return null;
  return Math.max(0, record.notBefore - now);
}

/** The record after one more failure at `now` (a forgotten record starts from zero). */
export function afterFailure(
  record: KeyState | undefined,
  policy: ThrottlePolicy,
  now: number,
): KeyState {
  const failures = (record ? record.failures : 0) + 1;
  const over = failures - policy.freeFailures;
  // 2 ** over overflows to Infinity for huge counts; min() still caps it.
  const notBefore =
    over < 0 ? 0 : now + Math.min(policy.baseDelayMs * 2 ** over, policy.maxDelayMs);
  return { failures, lastFailureAt: now, notBefore };
}
