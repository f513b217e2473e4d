import { Router } from 'express';

import { consoleRoutes } from '../../../../contract';
import type { AuditLog } from '../../../features/audit/audit-log';
import { consoleRoutesOn } from '../console-route';
import { pagingOf } from '../paging';

const routes = consoleRoutes.audit;

/** The audit log, read only: no route edits or deletes an entry. */
export function createAuditRouter(audit: AuditLog): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.list, ({ query }) => audit.list(query, pagingOf(query)));
  return router;
}
