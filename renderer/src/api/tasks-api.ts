import type { Instance, InstanceInput, Page, Task, TaskDetail } from '../data-types';
import { http } from './http-client';

/** V1 tasks, their tokens and instances. */
export const tasksApi = {
  list: (query: { name?: string; page?: number; pageSize?: number } = {}) =>
    http.get<Page<Task>>('/tasks', query),
  get: (id: number) => http.get<TaskDetail>(`/tasks/${id}`),
  create: (name: string) => http.post<Task>('/tasks', { name }),
  rename: (id: number, name: string) => http.put<Task>(`/tasks/${id}`, { name }),
  setAcceptLegacyToken: (id: number, acceptLegacyToken: boolean) =>
    http.put<Task>(`/tasks/${id}`, { acceptLegacyToken }),
  remove: (id: number) => http.delete(`/tasks/${id}`),
  token: (id: number) => http.get<{ token: string }>(`/tasks/${id}/token`),
  rotateToken: (id: number) => http.post<{ token: string }>(`/tasks/${id}/token/rotate`),
  instances: (id: number) => http.get<Instance[]>(`/tasks/${id}/instances`),
  addInstance: (id: number, input: InstanceInput) =>
    http.post<Instance>(`/tasks/${id}/instances`, input),
};
