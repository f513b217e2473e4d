import { describe, expect, it } from 'vitest';

import { retryPolicySchema } from '../../../../server/config/settings-schema';
import { nextAttemptAt, retryDelayMs } from '../../../../server/queue/backoff';

describe('retryDelayMs()', () => {
  const policy = retryPolicySchema.parse({});

  it('retryDelayMs() doubles from the base and stops at the cap', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, policy, mid))).toEqual([
      60_000, 120_000, 240_000, 480_000, 960_000, 960_000, 960_000,
    ]);
  });

  it('retryDelayMs() spreads each delay by the jitter share', () => {
    expect(retryDelayMs(1, policy, () => 0)).toBe(48_000);
    expect(retryDelayMs(1, policy, () => 1)).toBe(72_000);
  });

  it('the default policy makes 6 attempts over about 30 minutes', () => {
    let total = 0;
    let attempt = 1;
    for (; attempt < policy.maxAttempts; attempt++)
      total += retryDelayMs(attempt, policy, () => 0.5);
    expect(attempt).toBe(6);
    expect(total / 60_000).toBeCloseTo(31, 0);
  });
});

describe('nextAttemptAt()', () => {
  const policy = retryPolicySchema.parse({ maxAttempts: 3, jitter: 0 });

  it('nextAttemptAt() returns null when the attempts are used up', () => {
    expect(nextAttemptAt(3, policy, 1000)).toBeNull();
    expect(nextAttemptAt(2, policy, 1000)).toBe(1000 + 120_000);
  });

  it('nextAttemptAt() honours a longer wait the platform asked for', () => {
    expect(nextAttemptAt(1, policy, 0, 600_000)).toBe(600_000);
    expect(nextAttemptAt(1, policy, 0, 5)).toBe(60_000);
  });
});
