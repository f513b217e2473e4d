import { Router } from 'express';

import { CONSOLE_BASE, consoleRoutes } from '../../../../contract';
import type { LogService } from '../../../features/history/log-service';
import { contractRoutes } from '../../contract-route';
import { pagingOf } from '../paging';

const routes = consoleRoutes.logs;

export function createLogRouter(logs: LogService): Router {
  const router = Router();
  const serve = contractRoutes(router, CONSOLE_BASE);
  serve(routes.list, ({ query }) => logs.list(query, pagingOf(query)));
  serve(routes.get, ({ params }) => logs.detail(params.id));
  serve(routes.retry, ({ params }) => logs.retry(params.id));
  return router;
}
