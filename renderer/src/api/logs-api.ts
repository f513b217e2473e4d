import type { Delivery, LogQuery, Page, Send, SendDetail } from '../data-types';
import { http } from './http-client';

/** Send logs and delivery retries. */
export const logsApi = {
  list: (query: LogQuery = {}) => http.get<Page<Send>>('/logs', { ...query }),
  get: (id: number) => http.get<SendDetail>(`/logs/${id}`),
  retryDelivery: (deliveryId: number) => http.post<Delivery>(`/deliveries/${deliveryId}/retry`),
};
