import type { AuditQuery, consoleRoutes } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.audit;

/** The audit log: read only. */
export const auditApi = {
  list: (query: AuditQuery = {}) => call<Routes['list']>('GET', '/audit', { query }),
};
