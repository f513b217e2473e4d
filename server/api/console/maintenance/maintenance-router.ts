import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import { databaseInfo } from '../../../db/history/database-info';
import { pruneHistorySerially } from '../../../db/history/retention';
import type { HeraldParts } from '../../../parts';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.maintenance;

export type MaintenanceRouterDeps = Pick<
  HeraldParts,
  'sequelize' | 'writeLock' | 'settings' | 'clock' | 'events'
> &
  Partial<Pick<HeraldParts, 'attachments'>>;

/** The Settings page's database panel: size and row counts, and "Prune now". */
export function createMaintenanceRouter(deps: MaintenanceRouterDeps): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.info, async () => ({
    ...(await databaseInfo(deps.sequelize)),
    retention: deps.settings.get().retention,
  }));
  serve(routes.prune, async () => {
    const deleted = await pruneHistorySerially({
      sequelize: deps.sequelize,
      writeLock: deps.writeLock,
      events: deps.events,
      retention: () => deps.settings.get().retention,
      now: () => deps.clock.now(),
    });
    // Files whose send just went, and those past keepDays, go with it (issue 43 §2).
    await deps.attachments?.prune();
    return { deleted, retention: deps.settings.get().retention };
  });
  return router;
}
