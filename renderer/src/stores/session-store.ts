import { defineStore } from 'pinia';
import { computed, ref } from 'vue';

import type { Status, User, UserRole } from '@contract';

import { accountApi } from '../api/account-api';
import { ApiError } from '../api/http-client';
import { sessionApi } from '../api/session-api';
import { roleAtLeast } from '../lib/roles';

/** Whether a refused sign-in is the server asking for the second factor (401, `twoFactorRequired`). */
export function asksForSecondFactor(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    typeof err.data === 'object' &&
    err.data !== null &&
    (err.data as { twoFactorRequired?: unknown }).twoFactorRequired === true
  );
}

/** Who is signed in, and whether Herald still needs its first-run setup. */
export const useSessionStore = defineStore('session', () => {
  const user = ref<User | null>(null);
  const status = ref<Status | null>(null);
  /** Set once the first status/me round trip finished, so the router decides only once. */
  const restored = ref(false);

  const signedIn = computed(() => user.value !== null);
  const setupRequired = computed(() => status.value?.setupRequired === true);
  const version = computed(() => status.value?.version ?? '');
  const role = computed(() => user.value?.role);
  /** Whether the signed-in person's role reaches `need` (the console hides the rest). */
  const can = (need: UserRole) => roleAtLeast(user.value?.role, need);
  /** The administrator requires two-factor and this account has none yet: Account only. */
  const mustEnrol = computed(() => user.value?.twoFactor === 'required');

  async function loadStatus(): Promise<Status> {
    status.value = await sessionApi.status();
    return status.value;
  }

  /** Reads the status, which also names the user of the current cookie (or null). */
  async function restore(): Promise<void> {
    try {
      const s = await loadStatus();
      user.value = s.setupRequired ? null : (s.user ?? null);
    } finally {
      restored.value = true;
    }
  }

  /** `code`: with two-factor on, the app's code or a recovery code (asked for after a 401). */
  async function login(username: string, password: string, code?: string): Promise<void> {
    user.value = (await sessionApi.login(username, password, code)).user;
  }

  /** Sets the password from an invite link, which signs in. */
  async function acceptInvite(token: string, password: string): Promise<void> {
    user.value = (await accountApi.acceptInvite(token, password)).user;
  }

  /** Reads the signed-in user again (after two-factor changed). */
  async function refreshUser(): Promise<void> {
    user.value = (await sessionApi.me()).user;
  }

  async function setup(username: string, password: string, setupCode: string): Promise<void> {
    user.value = (await sessionApi.setup(username, password, setupCode)).user;
    if (status.value) status.value = { ...status.value, setupRequired: false };
  }

  /**
   * Signs out, and resolves with where the browser goes next to end the provider's or the
   * proxy's session too (a full navigation the caller makes), or null to stay in the console.
   */
  async function logout(): Promise<string | null> {
    try {
      return (await sessionApi.logout())?.redirectTo ?? null;
    } finally {
      user.value = null;
    }
  }

  async function changePassword(current: string, next: string): Promise<void> {
    await accountApi.changePassword(current, next);
  }

  /** Forgets the user locally after the server said the session is gone (401). */
  function expire(): void {
    user.value = null;
  }

  return {
    role,
    can,
    user,
    status,
    restored,
    signedIn,
    setupRequired,
    version,
    mustEnrol,
    loadStatus,
    restore,
    login,
    acceptInvite,
    refreshUser,
    setup,
    logout,
    changePassword,
    expire,
  };
});
