import { Router } from 'express';
import { z } from 'zod';

import { ok } from '../../../lib/envelope';
import { parseInput } from '../../../lib/validation';
import type { StatsService } from '../../../features/history/stats-service';

const statsQuerySchema = z.object({ days: z.coerce.number().int().min(1).max(365).default(30) });

/** GET /stats?days=N: the dashboard's figures over the last N days (30 when not given). */
export function createStatsRouter(stats: StatsService): Router {
  const router = Router();
  router.get('/stats', async (req, res) => {
    const { days } = parseInput(statsQuerySchema, {
      days: req.query.days === '' ? undefined : req.query.days,
    });
    ok(res, await stats.stats(days));
  });
  return router;
}
