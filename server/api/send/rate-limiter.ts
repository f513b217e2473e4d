/** Per-credential sliding-window limit on sends, for a Herald reachable by more than one script. */
export class SendRateLimiter {
  private readonly hits = new Map<string, number[]>();

  /** Returns true when the call is allowed (and counts it). */
  allow(key: string, perMinute: number, now: number): boolean {
    if (perMinute <= 0) return true;
    // Callers can make up any number of keys (a bad token still counts): forget idle ones.
    if (this.hits.size > 10_000) {
      for (const [k, times] of this.hits)
        if (times[times.length - 1] <= now - 60_000) this.hits.delete(k);
    }
    const window = (this.hits.get(key) ?? []).filter((t) => t > now - 60_000);
    if (window.length >= perMinute) {
      this.hits.set(key, window);
      return false;
    }
    window.push(now);
    this.hits.set(key, window);
    return true;
  }
}
