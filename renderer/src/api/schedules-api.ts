import { http } from './http-client';
import type { Page } from './types';

export type CatchUp = 'once' | 'skip';

/** What an administrator sets on a scheduled message (the console API's field names). */
export interface ScheduleFields {
  name: string;
  taskId: number | null;
  templateId: number | null;
  cron: string | null;
  /** ISO 8601 time of a one-time run. */
  runAt: string | null;
  timezone: string;
  title: string;
  text: string | null;
  html: string | null;
  markdown: string | null;
  url: string | null;
  atMobiles: string[];
  atUserIds: string[];
  atAll: boolean;
  recipients: string[];
  placeholders: Record<string, string>;
  enabled: boolean;
  catchUp: CatchUp;
}

export interface Schedule extends ScheduleFields {
  id: number;
  /** The task's or template's name; null once it was deleted. */
  sourceName: string | null;
  nextRunAt: string | null;
  lastRunAt: string | null;
  lastSendId: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CronPreview {
  cron: string;
  timezone: string;
  runs: string[];
}

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
