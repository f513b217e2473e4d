import type { RateLimit } from '../channels/channel-adapter';

/**
 * Pacing of deliveries per rate-limit key. The Pacer below keeps its windows in this process's
 * memory (SQLite, one process); on PostgreSQL the windows are rows every process takes from
 * (server/db/postgres/shared-limits.ts), so N processes together keep one robot's limit.
 */
export interface ChannelPacer {
  /** Takes a slot and returns 0, or returns the wait in ms until a slot frees (nothing taken). */
  reserve(limit: RateLimit, now: number): number | Promise<number>;
}

/**
 * Sliding-window pacing per rate-limit key (one robot webhook, say). A delivery that would
 * exceed the platform's limit is told how long to wait instead of being sent and rejected.
 * The window lives in memory: after a restart the platform's own limit error (transient)
 * is the safety net.
 */
export class Pacer implements ChannelPacer {
  private readonly windows = new Map<string, number[]>();

  /** Takes a slot and returns 0, or returns the wait in ms until a slot frees (nothing taken). */
  reserve(limit: RateLimit, now: number): number {
    const window = this.prune(limit, now);
    if (window.length < limit.max) {
      window.push(now);
      return 0;
    }
    return Math.max(1, window[0] + limit.perMs - now);
  }

  private prune(limit: RateLimit, now: number): number[] {
    let window = this.windows.get(limit.key);
    if (!window) {
      window = [];
      this.windows.set(limit.key, window);
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty window's first slot is undefined, never <= now
    while (window.length > 0 && window[0] <= now - limit.perMs) window.shift();
    return window;
  }
}
