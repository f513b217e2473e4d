import { defineStore } from 'pinia';
import { computed, ref } from 'vue';

import type { Status, User, UserRole } from '@contract';

import { sessionApi } from '../api/session-api';
import { roleAtLeast } from '../lib/roles';

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

  async function login(username: string, password: string): Promise<void> {
    user.value = (await sessionApi.login(username, password)).user;
  }

  async function setup(username: string, password: string, setupCode: string): Promise<void> {
    user.value = (await sessionApi.setup(username, password, setupCode)).user;
    if (status.value) status.value = { ...status.value, setupRequired: false };
  }

  async function logout(): Promise<void> {
    try {
      await sessionApi.logout();
    } finally {
      user.value = null;
    }
  }

  async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
    await sessionApi.changePassword(currentPassword, newPassword);
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
    loadStatus,
    restore,
    login,
    setup,
    logout,
    changePassword,
    expire,
  };
});
