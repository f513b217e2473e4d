import { Router } from 'express';

import { databaseInfo } from '../../../db/history/database-info';
import { pruneHistorySerially } from '../../../db/history/retention';
import { ok } from '../../../lib/envelope';
import type { HeraldParts } from '../../../parts';

export type MaintenanceRouterDeps = Pick<
  HeraldParts,
  'sequelize' | 'writeLock' | 'settings' | 'clock'
>;

/** The Settings page's database panel: size and row counts, and "Prune now". */
export function createMaintenanceRouter(deps: MaintenanceRouterDeps): Router {
  const router = Router();
  router.get('/maintenance', async (_req, res) => {
    ok(res, { ...(await databaseInfo(deps.sequelize)), retention: deps.settings.get().retention });
  });
  router.post('/maintenance/prune', async (_req, res) => {
    const deleted = await pruneHistorySerially(
      deps.sequelize,
      deps.writeLock,
      () => deps.settings.get().retention,
      () => deps.clock.now(),
    );
    ok(res, { deleted, retention: deps.settings.get().retention });
  });
  return router;
}
