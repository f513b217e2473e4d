import { describe, expect, it } from 'vitest';

import { deliveriesBound } from '../../../../scripts/bench/cpu-budget';

describe('deliveriesBound', () => {
  it("divides the cores' CPU time by what one delivery needs, its share of the accept included", () => {
    // 0.12 ms per send over 2 deliveries, 0.11 ms delivering, 0.03 ms for the load and the peer:
    // 0.2 ms per delivery, so 2 cores carry 10,000 a second.
    const bound = deliveriesBound({
      acceptMsPerSend: 0.12,
      deliverMsPerDelivery: 0.11,
      othersMsPerDelivery: 0.03,
      deliveriesPerSend: 2,
      cores: 2,
    });
    expect(bound).toBeCloseTo(10_000, 6);
  });

  it('grows with the cores and shrinks as any part costs more', () => {
    const base = {
      acceptMsPerSend: 0.1,
      deliverMsPerDelivery: 0.1,
      othersMsPerDelivery: 0.02,
      deliveriesPerSend: 1,
      cores: 2,
    };
    const bound = deliveriesBound(base);
    expect(deliveriesBound({ ...base, cores: 4 })).toBeCloseTo(2 * bound, 6);
    expect(deliveriesBound({ ...base, othersMsPerDelivery: 0.05 })).toBeLessThan(bound);
    expect(deliveriesBound({ ...base, deliveriesPerSend: 4 })).toBeGreaterThan(bound);
  });

  it('refuses parts that cost nothing, or no cores, rather than answer Infinity', () => {
    const none = {
      acceptMsPerSend: 0,
      deliverMsPerDelivery: 0,
      othersMsPerDelivery: 0,
      deliveriesPerSend: 2,
      cores: 2,
    };
    expect(() => deliveriesBound(none)).toThrow(/cost some CPU/);
    expect(() => deliveriesBound({ ...none, deliverMsPerDelivery: 0.1, cores: 0 })).toThrow(
      /at least one core/,
    );
    expect(() => deliveriesBound({ ...none, deliverMsPerDelivery: Number.NaN })).toThrow();
  });
});
