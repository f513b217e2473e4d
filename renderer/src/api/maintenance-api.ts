import type { consoleRoutes } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.maintenance;

/** The database panel of the Settings page. */
export const maintenanceApi = {
  info: () => call<Routes['info']>('GET', '/maintenance'),
  prune: () => call<Routes['prune']>('POST', '/maintenance/prune'),
};
