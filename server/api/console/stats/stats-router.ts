import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { StatsService } from '../../../features/history/stats-service';
import { consoleRoutesOn } from '../console-route';

/** GET /stats?days=N: the dashboard's figures over the last N days (30 when not given). */
export function createStatsRouter(stats: StatsService): Router {
  const router = Router();
  consoleRoutesOn(router)(consoleRoutes.stats.get, ({ query }) => stats.stats(query.days));
  return router;
}
