import { defineStore } from 'pinia';

import { tasksApi } from '../api/tasks-api';

/**
 * V1 tasks as the tasks page and the pickers use them. What tasks share with templates (token,
 * instances, Message Nest token) is the sources store's.
 */
export const useTasksStore = defineStore('tasks', () => {
  const list = (query: { name?: string; page?: number; pageSize?: number } = {}) =>
    tasksApi.list(query);
  const create = (name: string) => tasksApi.create(name);
  const rename = (id: number, name: string) => tasksApi.rename(id, name);
  const remove = (id: number) => tasksApi.remove(id);

  return { list, create, rename, remove };
});
