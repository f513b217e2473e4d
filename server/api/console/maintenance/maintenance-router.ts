import { Router } from 'express';

import type { AppContext } from '../../../context';
import { databaseInfo } from '../../../db/history/database-info';
import { pruneHistorySerially } from '../../../db/history/retention';
import { ok } from '../../../lib/envelope';

/** The Settings page's database panel: size and row counts, and "Prune now". */
export function createMaintenanceRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/maintenance', async (_req, res) => {
    ok(res, { ...(await databaseInfo(ctx.sequelize)), retention: ctx.settings.get().retention });
  });
  router.post('/maintenance/prune', async (_req, res) => {
    const deleted = await pruneHistorySerially(
      ctx.sequelize,
      ctx.writeLock,
      () => ctx.settings.get().retention,
      () => ctx.clock.now(),
    );
    ok(res, { deleted, retention: ctx.settings.get().retention });
  });
  return router;
}
