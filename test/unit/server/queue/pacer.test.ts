import { describe, expect, it } from 'vitest';

import { Pacer } from '../../../../server/queue/pacer';

describe('Pacer', () => {
  const limit = { key: 'robot-a', max: 20, perMs: 60_000 };

  it('reserve() lets 20 through in a minute, then names the wait until a slot frees', () => {
    const pacer = new Pacer();
    for (let i = 0; i < 20; i++) expect(pacer.reserve(limit, 1000 + i)).toBe(0);
    expect(pacer.reserve(limit, 1020)).toBe(60_000 - 20);
    expect(pacer.reserve(limit, 61_000)).toBe(0);
  });

  it('reserve() never allows more than max in any window for a long burst', () => {
    const pacer = new Pacer();
    const sentAt: number[] = [];
    let now = 0;
    const queue = Array.from({ length: 65 }, (_, i) => i);
    while (queue.length > 0) {
      const wait = pacer.reserve(limit, now);
      if (wait === 0) {
        sentAt.push(now);
        queue.shift();
      } else now += wait;
    }
    for (let i = 20; i < sentAt.length; i++)
      expect(sentAt[i] - sentAt[i - 20]).toBeGreaterThanOrEqual(60_000);
    expect(sentAt).toHaveLength(65);
  });

  it('reserve() keeps separate windows per key', () => {
    const pacer = new Pacer();
    for (let i = 0; i < 20; i++) pacer.reserve(limit, 0);
    expect(pacer.reserve({ ...limit, key: 'robot-b' }, 0)).toBe(0);
  });
});
