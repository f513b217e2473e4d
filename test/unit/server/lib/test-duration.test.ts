import { afterEach, describe, expect, it, vi } from 'vitest';

import { testDurationFromEnv } from '../../../../server/lib/test-duration';

describe('testDurationFromEnv', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is null unset or blank, the number of ms when set, and refuses anything else', () => {
    vi.stubEnv('HERALD_TEST_SOME_MS', '');
    expect(testDurationFromEnv('HERALD_TEST_SOME_MS', 100)).toBeNull();
    vi.stubEnv('HERALD_TEST_SOME_MS', '250');
    expect(testDurationFromEnv('HERALD_TEST_SOME_MS', 100)).toBe(250);
    for (const bad of ['50', '1.5', 'soon']) {
      vi.stubEnv('HERALD_TEST_SOME_MS', bad);
      expect(() => testDurationFromEnv('HERALD_TEST_SOME_MS', 100)).toThrow(
        `HERALD_TEST_SOME_MS must be a whole number of ms, at least 100, not "${bad}"`,
      );
    }
  });
});
