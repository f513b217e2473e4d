import { describe, expect, it, vi } from 'vitest';

import type { SharedState } from '../../../server/db/postgres/shared-state';
import { housekeepingJobs, type HousekeepingDeps } from '../../../server/housekeeping';

const HOUR = 60 * 60_000;

/** Parts the table only closes over: no job runs unless a test calls it. */
function deps(shared: SharedState | null): HousekeepingDeps {
  return {
    sequelize: {},
    writeLock: {},
    settings: {},
    clock: { now: () => 1_000 },
    shared,
  } as unknown as HousekeepingDeps;
}

describe('housekeepingJobs()', () => {
  it('housekeepingJobs() declares every job hourly, and the shared limits only when there are some', () => {
    // Arrange
    const shared = { prune: vi.fn() } as unknown as SharedState;

    // Act
    const alone = housekeepingJobs(deps(null));
    const withShared = housekeepingJobs(deps(shared));

    // Assert
    expect(alone.map((j) => j.name)).toEqual([
      'prune history',
      'prune idempotency keys',
      'prune expired sessions',
    ]);
    expect(withShared.map((j) => j.name)).toEqual([
      'prune history',
      'prune idempotency keys',
      'prune shared limits',
      'prune expired sessions',
    ]);
    expect([...alone, ...withShared].every((j) => j.everyMs === HOUR)).toBe(true);
  });

  it("housekeepingJobs() prunes the shared limits at the clock's time", async () => {
    // Arrange
    const prune = vi.fn(() => Promise.resolve());
    const job = housekeepingJobs(deps({ prune } as unknown as SharedState)).find(
      (j) => j.name === 'prune shared limits',
    );

    // Act
    await job!.run();

    // Assert
    expect(prune).toHaveBeenCalledWith(1_000);
  });
});
