import { describe, expect, it } from 'vitest';

import { SendRateLimiter } from '../../../../../server/features/sending/rate-limiter';
import { nextStatus } from '../../../../../server/queue/delivery-transitions';

describe('SendRateLimiter window edges', () => {
  const t0 = Date.parse('2026-12-01T12:00:00.000Z');

  it('frees a slot exactly one minute after it was taken', () => {
    const limiter = new SendRateLimiter();
    expect(limiter.allow('task:1', 1, t0)).toBe(true);
    expect(limiter.allow('task:1', 1, t0 + 59_999)).toBe(false);
    expect(limiter.allow('task:1', 1, t0 + 60_000)).toBe(true);
  });

  it('does not count a refused call against the budget', () => {
    const limiter = new SendRateLimiter();
    expect(limiter.allow('task:1', 1, t0)).toBe(true);
    expect(limiter.allow('task:1', 1, t0 + 30_000)).toBe(false);
    // Only the call at t0 was counted, so its slot is free again a minute later.
    expect(limiter.allow('task:1', 1, t0 + 60_001)).toBe(true);
  });
});

describe('nextStatus() for claims', () => {
  it('claims a waiting delivery only once it is due', () => {
    for (const from of ['queued', 'retrying'] as const) {
      expect(nextStatus('claim', from, { attempts: 1, due: false })).toBeNull();
      expect(nextStatus('claim', from, { attempts: 1, due: true })).toBe('sending');
    }
  });

  it('claims a delivery in flight only once its lease ran out, whatever its due time', () => {
    expect(nextStatus('claim', 'sending', { attempts: 1, due: true })).toBeNull();
    expect(nextStatus('claim', 'sending', { attempts: 1, due: false, leaseExpired: true })).toBe(
      'sending',
    );
  });

  it('lets other events through without the claim checks', () => {
    expect(nextStatus('succeed', 'sending', { attempts: 1, due: false })).toBe('sent');
    expect(nextStatus('requeue', 'failed', { attempts: 2, due: false })).toBe('queued');
    expect(nextStatus('defer', 'sending', { attempts: 0, due: false })).toBe('queued');
    expect(nextStatus('defer', 'sending', { attempts: 2, due: false })).toBe('retrying');
  });
});
