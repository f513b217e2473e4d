import { describe, expect, it, vi } from 'vitest';

import { DueLoop, type DueWork } from '../../../../server/lib/due-loop';

/** Work whose ticks answer the given counts in turn (then 0), and that can be held mid-tick. */
function work(counts: number[], overrides: Partial<DueWork> = {}) {
  const reports: string[] = [];
  let ticks = 0;
  let release: (() => void) | null = null;
  let hold = false;
  const w: DueWork = {
    what: 'doing due things',
    batch: 10,
    maxSleepMs: 60_000,
    minSleepMs: 1_000,
    report: (message) => reports.push(message),
    tick: async () => {
      ticks += 1;
      if (hold) {
        hold = false;
        await new Promise<void>((resolve) => (release = resolve));
      }
      return counts.shift() ?? 0;
    },
    nextDue: async () => null,
    ...overrides,
  };
  return {
    w,
    reports,
    ticks: () => ticks,
    holdNextTick: () => (hold = true),
    release: () => release?.(),
  };
}

const clock = { now: () => 1_000_000 };

describe('DueLoop', () => {
  it('looks again at once while a tick takes a full batch, then stops looking', async () => {
    const { w, ticks } = work([10, 10, 3]);
    const loop = new DueLoop(clock, w);
    await loop.start();
    expect(ticks()).toBe(3);
    await loop.stop();
  });

  it('a wake during a tick asks for one more tick after it, not a second one beside it', async () => {
    const t = work([]);
    const loop = new DueLoop(clock, t.w);
    await loop.start();
    expect(t.ticks()).toBe(1);
    t.holdNextTick();
    loop.wake();
    loop.wake();
    loop.wake();
    expect(t.ticks()).toBe(2);
    t.release();
    // The three wakes during the held tick make one more tick, and no further one.
    await vi.waitFor(() => expect(t.ticks()).toBe(3));
    await loop.stop();
    expect(t.ticks()).toBe(3);
  });

  it('reports a failed tick and a failed look for the next due time, and keeps going', async () => {
    let fail = true;
    const t = work([], {
      tick: async () => {
        if (fail) {
          fail = false;
          throw new Error('database away');
        }
        return 0;
      },
      nextDue: async () => {
        throw new Error('still away');
      },
    });
    const loop = new DueLoop(clock, t.w);
    await loop.start();
    expect(t.reports).toEqual([
      'doing due things failed: database away',
      'looking for the next due one (doing due things) failed: still away',
    ]);
    loop.wake();
    await vi.waitFor(() => expect(t.reports).toHaveLength(3));
    await loop.stop();
  });

  it('does nothing once stopped, and stop gives up waiting after its timeout', async () => {
    const t = work([]);
    const loop = new DueLoop(clock, t.w);
    t.holdNextTick();
    const started = loop.start();
    await loop.stop(1);
    loop.wake();
    expect(t.ticks()).toBe(1);
    t.release();
    await started;
    expect(t.ticks()).toBe(1);
  });
});
