import { Router } from 'express';

import { consoleRoutes, type DashboardNotice } from '../../../../contract';
import type { StatsService } from '../../../features/history/stats-service';
import { consoleRoutesOn } from '../console-route';

/**
 * GET /stats?days=N: the dashboard's figures over the last N days (30 when not given);
 * GET /stats/channel-health: how each channel's latest deliveries went;
 * GET /stats/notices: setup problems noticed while running (features/ops/proxy-host-notice.ts).
 */
export function createStatsRouter(
  stats: StatsService,
  notices: () => DashboardNotice[] = () => [],
): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(consoleRoutes.stats.get, ({ query }) => stats.stats(query.days));
  serve(consoleRoutes.stats.channelHealth, () => stats.channelHealth());
  serve(consoleRoutes.stats.notices, () => notices());
  return router;
}
