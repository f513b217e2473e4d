import { Op } from 'sequelize';

import { pruneHistorySerially } from './db/history/retention';
import { Session } from './db/models';
import type { SharedState } from './db/postgres/shared-state';
import { pruneIdempotencyKeys } from './features/sending/idempotency';
import type { Job } from './jobs';
import type { HeraldParts } from './parts';

const HOURLY = 60 * 60_000;

/** What the housekeeping prunes with, and the PostgreSQL shared limits when there are some. */
export type HousekeepingDeps = Pick<
  HeraldParts,
  'sequelize' | 'writeLock' | 'settings' | 'clock' | 'events'
> & {
  shared: SharedState | null;
  /** Files sent with messages: those past keepDays or whose send was pruned go (issue 43 §2). */
  attachments?: Pick<HeraldParts['attachments'], 'prune'>;
};

/** The hourly housekeeping, as the job table startJobs runs once Herald listens. */
export function housekeepingJobs(deps: HousekeepingDeps): Job[] {
  const { sequelize, writeLock, settings, clock, events, shared, attachments } = deps;
  return [
    {
      name: 'prune history',
      everyMs: HOURLY,
      run: () =>
        pruneHistorySerially({
          sequelize,
          writeLock,
          events,
          retention: () => settings.get().retention,
          now: () => clock.now(),
        }),
    },
    {
      name: 'prune idempotency keys',
      everyMs: HOURLY,
      run: () => pruneIdempotencyKeys({ clock, writeLock }),
    },
    ...(shared
      ? [
          {
            name: 'prune shared limits',
            everyMs: HOURLY,
            run: () => shared.prune(clock.now()),
          },
        ]
      : []),
    ...(attachments
      ? [{ name: 'prune expired files', everyMs: HOURLY, run: () => attachments.prune() }]
      : []),
    {
      name: 'prune expired sessions',
      everyMs: HOURLY,
      run: () =>
        writeLock.run(() =>
          Session.destroy({ where: { expiresAt: { [Op.lt]: new Date(clock.now()) } } }),
        ),
    },
  ];
}
