import type { consoleRoutes, QueryOf, ScheduleCreate, ScheduleUpdate } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.schedules;

/** Scheduled messages: CRUD, run now, and the next run times of an expression. */
export const schedulesApi = {
  list: (query: QueryOf<Routes['list']> = {}) =>
    call<Routes['list']>('GET', '/schedules', { query }),
  get: (id: number) => call<Routes['get']>('GET', `/schedules/${id}`),
  create: (input: ScheduleCreate) => call<Routes['create']>('POST', '/schedules', { body: input }),
  update: (id: number, input: ScheduleUpdate) =>
    call<Routes['update']>('PUT', `/schedules/${id}`, { body: input }),
  setEnabled: (id: number, enabled: boolean) =>
    call<Routes['patch']>('PATCH', `/schedules/${id}`, { body: { enabled } }),
  remove: (id: number) => call<Routes['remove']>('DELETE', `/schedules/${id}`),
  runNow: (id: number) => call<Routes['run']>('POST', `/schedules/${id}/run`),
  preview: (cron: string, timezone: string) =>
    call<Routes['preview']>('GET', '/schedules/preview', { query: { cron, timezone } }),
};
