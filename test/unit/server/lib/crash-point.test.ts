import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The armed case (the process kills itself) runs in its own process: test/integration/crash.
describe('test-only crash point', () => {
  // The module reads the variable as it loads, and files share a worker's modules
  // (docs/testing.md): another file may have loaded it already.
  beforeEach(() => vi.resetModules());
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('is inert when HERALD_TEST_CRASH_AT is not set', async () => {
    vi.stubEnv('HERALD_TEST_CRASH_AT', '');
    const { crashPoint, CRASH_POINTS } = await import('../../../../server/lib/crash-point');
    for (const point of CRASH_POINTS) crashPoint(point);
    // Still here: an armed point would have SIGKILLed this test worker and failed the file.
  });

  it('stays inert at points other than the armed one', async () => {
    vi.stubEnv('HERALD_TEST_CRASH_AT', 'during-delivery:1');
    const { crashPoint } = await import('../../../../server/lib/crash-point');
    crashPoint('before-commit');
    crashPoint('after-commit');
    crashPoint('during-cycle');
    // Still here: an armed point would have SIGKILLed this test worker and failed the file.
  });

  it.each(['after-comit', 'before-commit:0', 'before-commit:x', 'during-cycle:1.5'])(
    'refuses %s at start, naming the points',
    async (value) => {
      vi.stubEnv('HERALD_TEST_CRASH_AT', value);
      await expect(import('../../../../server/lib/crash-point')).rejects.toThrow(
        `HERALD_TEST_CRASH_AT must be one of before-commit, after-commit, during-cycle, during-delivery, digest-before-commit, optionally with ":<n>" (n ≥ 1), not "${value}"`,
      );
    },
  );
});
