const WINDOW_MS = 15 * 60_000;
const MAX_PER_USER = 5;
const MAX_PER_IP = 20;

/**
 * Counts failed sign-ins per IP+username and per IP in a 15-minute window, so a guesser is
 * slowed to a handful of tries without locking the real user out from another machine.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number) {}

  /** Milliseconds until another try is allowed, or 0. */
  retryAfterMs(ip: string, username: string): number {
    const t = this.now();
    const waits = [
      this.wait(`u:${ip}:${username.toLowerCase()}`, MAX_PER_USER, t),
      this.wait(`ip:${ip}`, MAX_PER_IP, t),
    ];
    return Math.max(...waits);
  }

  fail(ip: string, username: string): void {
    const t = this.now();
    // Any made-up username adds a key: forget the ones whose window has passed.
    if (this.failures.size > 10_000) {
      for (const [k, times] of this.failures)
        if (times[times.length - 1] <= t - WINDOW_MS) this.failures.delete(k);
    }
    for (const key of [`u:${ip}:${username.toLowerCase()}`, `ip:${ip}`]) {
      const list = (this.failures.get(key) ?? []).filter((x) => x > t - WINDOW_MS);
      list.push(t);
      this.failures.set(key, list);
    }
  }

  succeed(ip: string, username: string): void {
    this.failures.delete(`u:${ip}:${username.toLowerCase()}`);
  }

  private wait(key: string, max: number, t: number): number {
    const list = (this.failures.get(key) ?? []).filter((x) => x > t - WINDOW_MS);
    this.failures.set(key, list);
    if (list.length < max) return 0;
    return list[list.length - max] + WINDOW_MS - t;
  }
}
