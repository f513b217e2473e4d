import type { consoleRoutes } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.auth;

/** Sign-in, first-run setup and the signed-in user. */
export const sessionApi = {
  status: () => call<Routes['status']>('GET', '/status', { redirectOn401: false }),
  setup: (username: string, password: string, setupCode: string) =>
    call<Routes['setup']>('POST', '/setup', {
      body: { username, password, setupCode },
      redirectOn401: false,
    }),
  login: (username: string, password: string, code?: string) =>
    call<Routes['login']>('POST', '/login', {
      body: { username, password, ...(code ? { code } : {}) },
      redirectOn401: false,
    }),
  logout: () => call<Routes['logout']>('POST', '/logout', { redirectOn401: false }),
  me: () => call<Routes['me']>('GET', '/me'),
};
