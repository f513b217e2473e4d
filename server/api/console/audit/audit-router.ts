import { Router } from 'express';

import { CONSOLE_BASE, consoleRoutes } from '../../../../contract';
import type { AuditLog } from '../../../features/audit/audit-log';
import { contractRoutes } from '../../contract-route';
import { pagingOf } from '../paging';

const routes = consoleRoutes.audit;

/** The audit log, read only: no route edits or deletes an entry. */
export function createAuditRouter(audit: AuditLog): Router {
  const router = Router();
  const serve = contractRoutes(router, CONSOLE_BASE);
  serve(routes.list, ({ query }) => audit.list(query, pagingOf(query)));
  return router;
}
