import type { CronPreview, Page, Schedule, ScheduleFields } from '../data-types';
import { http } from './http-client';

/** Scheduled messages: CRUD, run now, and the next run times of an expression. */
export const schedulesApi = {
  list: (query: { name?: string; page?: number; pageSize?: number } = {}) =>
    http.get<Page<Schedule>>('/schedules', query),
  get: (id: number) => http.get<Schedule>(`/schedules/${id}`),
  create: (input: Partial<ScheduleFields> & { name: string; title: string }) =>
    http.post<Schedule>('/schedules', input),
  update: (id: number, input: Partial<ScheduleFields>) =>
    http.put<Schedule>(`/schedules/${id}`, input),
  setEnabled: (id: number, enabled: boolean) =>
    http.patch<Schedule>(`/schedules/${id}`, { enabled }),
  remove: (id: number) => http.delete(`/schedules/${id}`),
  runNow: (id: number) => http.post<{ sendId: number; schedule: Schedule }>(`/schedules/${id}/run`),
  preview: (cron: string, timezone: string) =>
    http.get<CronPreview>('/schedules/preview', { cron, timezone }),
};
