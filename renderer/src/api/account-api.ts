import type { consoleRoutes } from '@contract';

import { call } from './http-client';

type Account = typeof consoleRoutes.account;
type TwoFactor = typeof consoleRoutes.twoFactor;

/** The signed-in person's own account: password, sessions, two-factor; and invite links. */
export const accountApi = {
  changePassword: (current: string, next: string) =>
    call<Account['password']>('POST', '/account/password', { body: { current, new: next } }),
  sessions: () => call<Account['sessions']>('GET', '/account/sessions'),
  revokeOthers: () => call<Account['revokeSessions']>('DELETE', '/account/sessions'),
  // A session's {id} is its hex key, where the path type expects the usual numeric id.
  revokeSession: (id: string) =>
    call<Account['revokeSession']>(
      'DELETE',
      `/account/sessions/${id}` as `/account/sessions/${number}`,
    ),

  twoFactor: () => call<TwoFactor['status']>('GET', '/account/two-factor'),
  setupTwoFactor: () => call<TwoFactor['setup']>('POST', '/account/two-factor/setup'),
  enableTwoFactor: (code: string) =>
    call<TwoFactor['enable']>('POST', '/account/two-factor/enable', { body: { code } }),
  disableTwoFactor: (password: string) =>
    call<TwoFactor['disable']>('POST', '/account/two-factor/disable', { body: { password } }),
  newRecoveryCodes: (code: string) =>
    call<TwoFactor['recoveryCodes']>('POST', '/account/two-factor/recovery-codes', {
      body: { code },
    }),

  /** Public: the invite link's page, before any session. */
  invite: (token: string) =>
    call<Account['invite']>('GET', '/invite', { query: { token }, redirectOn401: false }),
  acceptInvite: (token: string, password: string) =>
    call<Account['acceptInvite']>('POST', '/invite', {
      body: { token, password },
      redirectOn401: false,
    }),
};
