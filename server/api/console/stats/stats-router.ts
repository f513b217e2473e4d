import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { StatsService } from '../../../features/history/stats-service';
import { consoleRoutesOn } from '../console-route';

/**
 * GET /stats?days=N: the dashboard's figures over the last N days (30 when not given);
 * GET /stats/channel-health: how each channel's latest deliveries went.
 */
export function createStatsRouter(stats: StatsService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(consoleRoutes.stats.get, ({ query }) => stats.stats(query.days));
  serve(consoleRoutes.stats.channelHealth, () => stats.channelHealth());
  return router;
}
