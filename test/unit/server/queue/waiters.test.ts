import { describe, expect, it } from 'vitest';

import { AttemptWaiters, type AttemptResult } from '../../../../server/queue/waiters';

const result = (deliveryId: number, status: AttemptResult['status']): AttemptResult => ({
  deliveryId,
  status,
  error: status === 'failed' ? 'HTTP 400' : null,
  reply: `reply ${deliveryId}`,
});

describe('AttemptWaiters', () => {
  it('resolves with each notified attempt and never reads the current state', async () => {
    const waiters = new AttemptWaiters();
    const reads: number[][] = [];
    const waiting = waiters.wait([1, 2], 60_000, async (ids) => {
      reads.push(ids);
      return [];
    });
    waiters.notify(result(2, 'failed'));
    waiters.notify(result(1, 'sent'));
    const got = await waiting;
    expect([...got.entries()]).toEqual([
      [2, result(2, 'failed')],
      [1, result(1, 'sent')],
    ]);
    expect(reads).toEqual([]);
  });

  it('gives every caller waiting on the same delivery the attempt', async () => {
    const waiters = new AttemptWaiters();
    const none = async () => [];
    const first = waiters.wait([7], 60_000, none);
    const second = waiters.wait([7], 60_000, none);
    waiters.notify(result(7, 'retrying'));
    expect((await first).get(7)).toEqual(result(7, 'retrying'));
    expect((await second).get(7)).toEqual(result(7, 'retrying'));
  });

  it('reads the current state of only the deliveries still waiting when the time runs out', async () => {
    const waiters = new AttemptWaiters();
    const reads: number[][] = [];
    const notified = result(3, 'sent');
    // Delivery 3 is recorded before the wait's time runs out; 4 and 5 never are.
    const waiting = waiters.wait([3, 4, 5], 0, async (ids) => {
      reads.push(ids);
      return ids.map((id) => result(id, 'queued'));
    });
    waiters.notify(notified);
    const got = await waiting;
    expect(reads).toEqual([[4, 5]]);
    expect(got.get(3)).toEqual(notified);
    expect(got.get(4)).toEqual(result(4, 'queued'));
    expect(got.get(5)).toEqual(result(5, 'queued'));
  });

  it('forgets a caller whose time ran out, so a later attempt reaches only new callers', async () => {
    const waiters = new AttemptWaiters();
    const timedOut = await waiters.wait([9], 0, async () => [result(9, 'queued')]);
    expect(timedOut.get(9)).toEqual(result(9, 'queued'));
    const later = waiters.wait([9], 60_000, async () => []);
    waiters.notify(result(9, 'sent'));
    expect((await later).get(9)).toEqual(result(9, 'sent'));
  });

  it('ignores an attempt nobody waits for, and a second notify of the same delivery', async () => {
    const waiters = new AttemptWaiters();
    expect(() => waiters.notify(result(11, 'sent'))).not.toThrow();
    let calls = 0;
    const waiting = waiters.wait([12], 60_000, async () => []);
    void waiting.then(() => calls++);
    waiters.notify(result(12, 'sent'));
    waiters.notify(result(12, 'failed'));
    expect((await waiting).get(12)).toEqual(result(12, 'sent'));
    expect(calls).toBe(1);
  });
});
