import { describe, expect, it } from 'vitest';

import { SendRateLimiter } from '../../../server/api/send/rate-limiter';
import { assertRegistry, createChannelRegistry } from '../../../server/channels/registry';
import { statusFromCounts } from '../../../server/queue/delivery-state';

describe('statusFromCounts()', () => {
  it('statusFromCounts() rolls deliveries up into the send status', () => {
    expect(statusFromCounts({ sent: 2 })).toBe('sent');
    expect(statusFromCounts({ sent: 1, failed: 1 })).toBe('partial');
    expect(statusFromCounts({ failed: 2 })).toBe('failed');
    expect(statusFromCounts({ sent: 1, retrying: 1 })).toBe('pending');
    expect(statusFromCounts({ queued: 1, failed: 1 })).toBe('pending');
  });
});

describe('assertRegistry()', () => {
  it('assertRegistry() accepts the real registry and rejects mismatched keys', () => {
    expect(() => assertRegistry(createChannelRegistry())).not.toThrow();
    expect(() =>
      assertRegistry({ ...createChannelRegistry(), hosted: { type: 'webhook' } }),
    ).toThrow(/holds the adapter/);
  });
});

describe('SendRateLimiter', () => {
  it('allow() counts per key within a minute and is off at 0', () => {
    const limiter = new SendRateLimiter();
    expect(limiter.allow('a', 0, 0)).toBe(true);
    expect([1, 2, 3].map(() => limiter.allow('a', 2, 1000))).toEqual([true, true, false]);
    expect(limiter.allow('b', 2, 1000)).toBe(true);
    expect(limiter.allow('a', 2, 61_001)).toBe(true);
  });
});
