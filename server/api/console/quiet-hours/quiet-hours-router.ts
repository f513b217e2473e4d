import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { QuietHoursService } from '../../../features/quiet-hours/quiet-hours-service';
import { consoleRoutesOn } from '../console-route';

const routes = consoleRoutes.quietHours;

/** Quiet hours (docs/console-api.md): the service decides who may touch which rule. */
export function createQuietHoursRouter(service: QuietHoursService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.list, ({ query }, req) => service.list(req.user!, query));
  serve(routes.create, ({ body }, req) => service.create(req.user!, body));
  // Before /quiet-hours/{id}, which would read "preview" as an id.
  serve(routes.preview, ({ query }, req) => service.preview(req.user!, query));
  serve(routes.update, ({ params, body }, req) => service.update(req.user!, params.id, body));
  serve(routes.remove, async ({ params }, req) => {
    await service.remove(req.user!, params.id);
    return null;
  });
  return router;
}
