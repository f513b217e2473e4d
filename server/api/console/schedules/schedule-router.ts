import { Router, type Request, type Response } from 'express';

import { ok } from '../../../lib/envelope';
import { parsePaging } from '../../../lib/paging';
import { parseId, parseInput } from '../../../lib/validation';
import { previewQuerySchema, scheduleCreateSchema, schedulePatchSchema } from '../../../features/schedules/schedule-schemas';
import type { ScheduleService } from '../../../features/schedules/schedule-service';

export function createScheduleRouter(schedules: ScheduleService): Router {
  const router = Router();
  router.get('/schedules', async (req, res) => {
    const name = typeof req.query.name === 'string' && req.query.name ? req.query.name : undefined;
    ok(res, await schedules.list(name, parsePaging(req.query)));
  });
  router.post('/schedules', async (req, res) =>
    ok(res, await schedules.create(parseInput(scheduleCreateSchema, req.body))),
  );
  // Before /schedules/:id, which would read "preview" as an id.
  router.get('/schedules/preview', (req, res) => {
    const query = parseInput(previewQuerySchema, {
      cron: req.query.cron,
      timezone: req.query.timezone,
      count: req.query.count,
    });
    ok(res, schedules.preview(query.cron, query.timezone, query.count));
  });
  router.get('/schedules/:id', async (req, res) =>
    ok(res, await schedules.detail(parseId(req.params.id))),
  );
  const update = async (req: Request, res: Response) =>
    ok(
      res,
      await schedules.update(parseId(req.params.id), parseInput(schedulePatchSchema, req.body)),
    );
  router.put('/schedules/:id', update);
  router.patch('/schedules/:id', update);
  router.delete('/schedules/:id', async (req, res) => {
    await schedules.remove(parseId(req.params.id));
    ok(res, null);
  });
  router.post('/schedules/:id/run', async (req, res) =>
    ok(res, await schedules.runNow(parseId(req.params.id))),
  );
  return router;
}
