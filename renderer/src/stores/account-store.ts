import { defineStore } from 'pinia';

import { accountApi } from '../api/account-api';

/**
 * The signed-in person's own account, as the Account page shows it: sessions and two-factor,
 * and the invite link's lookup. Each card keeps what it loaded; nothing here is shared state.
 */
export const useAccountStore = defineStore('account', () => ({
  sessions: () => accountApi.sessions(),
  revokeSession: (id: string) => accountApi.revokeSession(id),
  revokeOthers: () => accountApi.revokeOthers(),
  twoFactor: () => accountApi.twoFactor(),
  setupTwoFactor: () => accountApi.setupTwoFactor(),
  enableTwoFactor: (code: string) => accountApi.enableTwoFactor(code),
  disableTwoFactor: (password: string) => accountApi.disableTwoFactor(password),
  newRecoveryCodes: (code: string) => accountApi.newRecoveryCodes(code),
  invite: (token: string) => accountApi.invite(token),
}));
