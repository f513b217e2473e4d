import type { BodyOf, consoleRoutes } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.users;

/** The team's accounts (administrators only). */
export const usersApi = {
  list: () => call<Routes['list']>('GET', '/users'),
  create: (body: BodyOf<Routes['create']>) => call<Routes['create']>('POST', '/users', { body }),
  update: (id: number, body: BodyOf<Routes['update']>) =>
    call<Routes['update']>('PATCH', `/users/${id}`, { body }),
  remove: (id: number) => call<Routes['remove']>('DELETE', `/users/${id}`),
  invite: (id: number) => call<Routes['invite']>('POST', `/users/${id}/invite`),
  sessions: (id: number) => call<Routes['sessions']>('GET', `/users/${id}/sessions`),
  revokeSessions: (id: number) => call<Routes['revokeSessions']>('DELETE', `/users/${id}/sessions`),
};
