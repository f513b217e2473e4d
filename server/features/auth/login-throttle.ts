import {
  USER_POLICY,
  afterFailure,
  waitOf,
  type KeyState,
  type SignInThrottle,
  type ThrottleKey,
} from '../../domain/sign-in-throttle';
import type { Clock } from '../../lib/clock';

const MAX_KEYS = 10_000;

/**
 * Slows password (and setup code) guessing with delays that double per failure: after the free
 * tries, 1 s, 2 s, 4 s … up to a few minutes. It never locks anyone out: once the current delay
 * has passed, the right password works again, whoever else is guessing.
 *
 * A try is counted as a failure when it starts and forgotten when it succeeds, so many tries
 * sent at once cannot all slip through before the first one is judged.
 */
export class LoginThrottle implements SignInThrottle {
  private readonly records = new Map<string, KeyState>();

  constructor(private readonly clock: Clock) {}

  /**
   * Starts a try: 0 when it may go ahead (and it is then counted as a failure until
   * `succeed`), otherwise the milliseconds to wait, and nothing is counted.
   */
  begin(keys: ThrottleKey[]): number {
    const now = this.clock.now();
    const wait = Math.max(0, ...keys.map((k) => this.waitFor(k, now)));
    if (wait > 0) return wait;
    this.prune(now);
    for (const k of keys) this.recordFailure(k, now);
    return 0;
  }

  /** The try was right: its keys start over. */
  succeed(keys: ThrottleKey[]): void {
    for (const k of keys) this.records.delete(k.key);
  }

  private waitFor({ key, policy }: ThrottleKey, now: number): number {
    const record = this.records.get(key);
    if (!record) return 0;
    const wait = waitOf(record, policy, now);
    if (wait === null) this.records.delete(key);
    return wait ?? 0;
  }

  private recordFailure({ key, policy }: ThrottleKey, now: number): void {
    this.records.set(key, afterFailure(this.records.get(key), policy, now));
  }

  /** Made-up usernames add keys: drop the ones nobody has failed on for a while. */
  private prune(now: number): void {
    if (this.records.size < MAX_KEYS) return;
    for (const [key, record] of this.records) {
      if (now - record.lastFailureAt >= USER_POLICY.forgetAfterMs && record.notBefore <= now) {
        this.records.delete(key);
      }
    }
  }
}

/** "30 seconds", "2 minutes": how long a 429 tells the caller to wait. */
export function describeWait(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
