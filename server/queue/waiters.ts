import type { DeliveryStatus } from './delivery-transitions';

/** What the first (or any) attempt of a delivery came to. */
export interface AttemptResult {
  deliveryId: number;
  status: DeliveryStatus;
  error: string | null;
  reply: string | null;
}

/**
 * V1's synchronous answer: callers wait for the next recorded attempt of their deliveries;
 * whoever records an attempt calls `notify` once it is committed.
 */
export class AttemptWaiters {
  private readonly waiters = new Map<number, Array<(r: AttemptResult) => void>>();

  /**
   * Resolves with each delivery's next recorded attempt, or, for those still waiting when the
   * time runs out, with their state as `current` reads it.
   */
  async wait(
    ids: number[],
    timeoutMs: number,
    current: (ids: number[]) => Promise<AttemptResult[]>,
  ): Promise<Map<number, AttemptResult>> {
    const results = new Map<number, AttemptResult>();
    const promises = ids.map(
      (id) =>
        new Promise<void>((resolve) => {
          const list = this.waiters.get(id) ?? [];
          list.push((r) => {
            results.set(id, r);
            resolve();
          });
          this.waiters.set(id, list);
        }),
    );
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(promises),
      new Promise<void>((r) => (timeout = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timeout);
    const missing = ids.filter((id) => !results.has(id));
    for (const id of missing) this.waiters.delete(id);
    if (missing.length > 0) {
      for (const r of await current(missing)) results.set(r.deliveryId, r);
    }
    return results;
  }

  /** Whether someone waits for this delivery's next attempt. */
  waitsFor(deliveryId: number): boolean {
    return this.waiters.has(deliveryId);
  }

  notify(result: AttemptResult): void {
    const list = this.waiters.get(result.deliveryId);
    if (!list) return;
    this.waiters.delete(result.deliveryId);
    for (const w of list) w(result);
  }
}
