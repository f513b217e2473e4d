import type { consoleRoutes, InstanceInput, QueryOf } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.tasks;

/** V1 tasks, their tokens and instances. */
export const tasksApi = {
  list: (query: QueryOf<Routes['list']> = {}) => call<Routes['list']>('GET', '/tasks', { query }),
  get: (id: number) => call<Routes['get']>('GET', `/tasks/${id}`),
  create: (name: string) => call<Routes['create']>('POST', '/tasks', { body: { name } }),
  rename: (id: number, name: string) =>
    call<Routes['update']>('PUT', `/tasks/${id}`, { body: { name } }),
  setAcceptMessageNestToken: (id: number, acceptLegacyToken: boolean) =>
    call<Routes['update']>('PUT', `/tasks/${id}`, { body: { acceptLegacyToken } }),
  remove: (id: number) => call<Routes['remove']>('DELETE', `/tasks/${id}`),
  token: (id: number) => call<Routes['token']>('GET', `/tasks/${id}/token`),
  rotateToken: (id: number) => call<Routes['rotateToken']>('POST', `/tasks/${id}/token/rotate`),
  instances: (id: number) => call<Routes['instances']>('GET', `/tasks/${id}/instances`),
  addInstance: (id: number, input: InstanceInput) =>
    call<Routes['addInstance']>('POST', `/tasks/${id}/instances`, { body: input }),
};
