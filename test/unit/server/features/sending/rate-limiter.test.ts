import { describe, expect, it } from 'vitest';

import {
  RATE_LIMITER_MAX_KEYS,
  SendRateLimiter,
} from '../../../../../server/features/sending/rate-limiter';

describe('SendRateLimiter', () => {
  const now = Date.parse('2026-12-01T12:00:00.000Z');

  it('allow() counts calls per key within a sliding minute', () => {
    const limiter = new SendRateLimiter();
    expect([1, 2, 3].map(() => limiter.allow('task:1', 2, now))).toEqual([true, true, false]);
    expect(limiter.allow('task:2', 2, now)).toBe(true);
    expect(limiter.allow('task:1', 2, now + 59_999)).toBe(false);
    expect(limiter.allow('task:1', 2, now + 60_001)).toBe(true);
  });

  it('allow() remembers no key while the limit is off', () => {
    const limiter = new SendRateLimiter();
    for (let i = 0; i < 100; i++) expect(limiter.allow(`task:${i}`, 0, now)).toBe(true);
    expect(limiter.size).toBe(0);
  });

  it('allow() never holds more keys than its cap, however many arrive within the minute', () => {
    const limiter = new SendRateLimiter();
    for (let i = 0; i < RATE_LIMITER_MAX_KEYS * 3; i++) limiter.allow(`template:${i}`, 5, now);
    expect(limiter.size).toBe(RATE_LIMITER_MAX_KEYS);
  });

  it('allow() forgets the least recently used key first, keeping busy budgets', () => {
    const limiter = new SendRateLimiter(3);
    limiter.allow('busy', 1, now);
    limiter.allow('a', 1, now);
    limiter.allow('b', 1, now);
    // "busy" is used again (and refused), so "a" is now the least recently used.
    expect(limiter.allow('busy', 1, now)).toBe(false);
    limiter.allow('c', 1, now);
    expect(limiter.size).toBe(3);
    expect(limiter.allow('busy', 1, now)).toBe(false);
    // "a" was forgotten: it starts a fresh budget.
    expect(limiter.allow('a', 1, now)).toBe(true);
  });
});
