import { Router } from 'express';
import { z } from 'zod';

import { settingsPatchSchema } from '../../../config/settings-schema';
import type { AppContext } from '../../../context';
import { ok } from '../../../lib/envelope';
import { parseInput } from '../../../lib/validation';
import type { StatsService } from '../stats/stats-service';

export function createSettingsRouter(ctx: AppContext, stats: StatsService): Router {
  const router = Router();
  const view = () => ({
    ...ctx.settings.get(),
    about: {
      version: ctx.version,
      dataDir: ctx.dataDir,
      listen: ctx.listenUrl(),
      deliveriesPaused: ctx.dispatcher.paused,
    },
  });
  router.get('/settings', (_req, res) => ok(res, view()));
  router.put('/settings', async (req, res) => {
    await ctx.settings.update(parseInput(settingsPatchSchema, req.body));
    ok(res, view());
  });
  router.get('/stats', async (req, res) => {
    const { days } = parseInput(
      z.object({ days: z.coerce.number().int().min(1).max(365).default(30) }),
      { days: req.query.days === '' ? undefined : req.query.days },
    );
    ok(res, await stats.stats(days));
  });
  return router;
}
