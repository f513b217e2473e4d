import type { Status, User } from '../data-types';
import { http, request } from './http-client';

/** Sign-in, first-run setup and the signed-in user. */
export const sessionApi = {
  status: () => request<Status>('GET', '/status', { redirectOn401: false }),
  setup: (username: string, password: string, setupCode: string) =>
    request<{ user: User }>('POST', '/setup', {
      body: { username, password, setupCode },
      redirectOn401: false,
    }),
  login: (username: string, password: string) =>
    request<{ user: User }>('POST', '/login', {
      body: { username, password },
      redirectOn401: false,
    }),
  logout: () => request<null>('POST', '/logout', { redirectOn401: false }),
  changePassword: (currentPassword: string, newPassword: string) =>
    http.post<null>('/password', { currentPassword, newPassword }),
};
