import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { ScheduleService } from '../../../features/schedules/schedule-service';
import { consoleRoutesOn } from '../console-route';
import { pagingOf } from '../paging';

const routes = consoleRoutes.schedules;

export function createScheduleRouter(schedules: ScheduleService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.list, ({ query }) => schedules.list(query.name, pagingOf(query)));
  serve(routes.create, ({ body }) => schedules.create(body));
  // Before /schedules/{id}, which would read "preview" as an id.
  serve(routes.preview, ({ query }) => schedules.preview(query.cron, query.timezone, query.count));
  serve(routes.get, ({ params }) => schedules.detail(params.id));
  serve(routes.update, ({ params, body }) => schedules.update(params.id, body));
  serve(routes.patch, ({ params, body }) => schedules.update(params.id, body));
  serve(routes.remove, async ({ params }) => {
    await schedules.remove(params.id);
    return null;
  });
  serve(routes.run, ({ params }) => schedules.runNow(params.id));
  return router;
}
