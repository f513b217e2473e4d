import { defineStore } from 'pinia';

import type { LogQuery } from '@contract';

import { logsApi } from '../api/logs-api';

/** Send logs: the list, one send's detail, and retrying a delivery. */
export const useLogsStore = defineStore('logs', () => {
  const list = (query: LogQuery = {}) => logsApi.list(query);
  const detail = (id: number) => logsApi.get(id);
  const retryDelivery = (deliveryId: number) => logsApi.retryDelivery(deliveryId);

  return { list, detail, retryDelivery };
});
