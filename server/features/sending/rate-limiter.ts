const WINDOW_MS = 60_000;

/** How many credentials the limiter remembers at most; past it, the least recently used is forgotten. */
export const RATE_LIMITER_MAX_KEYS = 10_000;

/**
 * A per-key limit of calls a minute. SendRateLimiter keeps it in this process's memory (SQLite,
 * one process); on PostgreSQL several processes count together in the database
 * (server/db/postgres/shared-limits.ts).
 */
export interface RateLimiter {
  /** Returns true when the call is allowed (and counts it). */
  allow(key: string, perMinute: number, now: number): boolean | Promise<boolean>;
}

/**
 * Per-credential sliding-window limit on sends, for a Herald reachable by more than one script.
 * Callers key it on the resolved task or template, so only credentials that opened something
 * reach it; the cap still bounds its memory whatever the number of tasks and templates.
 */
export class SendRateLimiter implements RateLimiter {
  // A Map iterates in insertion order; every call re-inserts its key, so the first key is
  // always the least recently used one.
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly maxKeys = RATE_LIMITER_MAX_KEYS) {}

  /** Returns true when the call is allowed (and counts it). */
  allow(key: string, perMinute: number, now: number): boolean {
    if (perMinute <= 0) return true;
    // Stryker disable next-line ArrayDeclaration: anything but a number is dropped by the filter
    const window = (this.hits.get(key) ?? []).filter((t) => t > now - WINDOW_MS);
    const allowed = window.length < perMinute;
    if (allowed) window.push(now);
    this.hits.delete(key);
    this.hits.set(key, window);
    while (this.hits.size > this.maxKeys) {
      const oldest = this.hits.keys().next().value as string;
      this.hits.delete(oldest);
    }
    return allowed;
  }

  /** How many credentials are remembered (for tests and diagnostics). */
  get size(): number {
    return this.hits.size;
  }
}
