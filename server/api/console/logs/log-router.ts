import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { LogService } from '../../../features/history/log-service';
import { consoleRoutesOn } from '../console-route';
import { pagingOf } from '../paging';

const routes = consoleRoutes.logs;

export function createLogRouter(logs: LogService): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.list, ({ query }) => logs.list(query, pagingOf(query)));
  serve(routes.get, ({ params }) => logs.detail(params.id));
  serve(routes.retry, ({ params }) => logs.retry(params.id));
  return router;
}
