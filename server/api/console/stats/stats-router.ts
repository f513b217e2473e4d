import { Router } from 'express';

import { CONSOLE_BASE, consoleRoutes } from '../../../../contract';
import type { StatsService } from '../../../features/history/stats-service';
import { contractRoutes } from '../../contract-route';

/** GET /stats?days=N: the dashboard's figures over the last N days (30 when not given). */
export function createStatsRouter(stats: StatsService): Router {
  const router = Router();
  contractRoutes(router, CONSOLE_BASE)(consoleRoutes.stats.get, ({ query }) =>
    stats.stats(query.days),
  );
  return router;
}
