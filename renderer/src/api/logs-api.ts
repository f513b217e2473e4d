import type { consoleRoutes, LogQuery } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.logs;

/** Send logs and delivery retries. */
export const logsApi = {
  list: (query: LogQuery = {}) => call<Routes['list']>('GET', '/logs', { query }),
  get: (id: number) => call<Routes['get']>('GET', `/logs/${id}`),
  retryDelivery: (deliveryId: number) =>
    call<Routes['retry']>('POST', `/deliveries/${deliveryId}/retry`),
};
