import { defineStore } from 'pinia';

import type { ScheduleCreate } from '@contract';

import { schedulesApi } from '../api/schedules-api';

/** Scheduled messages: the list, the editor's save and cron preview, switch, run now, delete. */
export const useSchedulesStore = defineStore('schedules', () => {
  const list = (query: { name?: string; page?: number; pageSize?: number } = {}) =>
    schedulesApi.list(query);
  /** Creates (no id) or updates (id) a schedule. */
  const save = (id: number | null, input: ScheduleCreate) =>
    id === null ? schedulesApi.create(input) : schedulesApi.update(id, input);
  const setEnabled = (id: number, enabled: boolean) => schedulesApi.setEnabled(id, enabled);
  const runNow = (id: number) => schedulesApi.runNow(id);
  const remove = (id: number) => schedulesApi.remove(id);
  /** The next run times of an expression in a time zone, as the server computes them. */
  const preview = (cron: string, timezone: string) => schedulesApi.preview(cron, timezone);

  return { list, save, setEnabled, runNow, remove, preview };
});
