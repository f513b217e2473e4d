import { defineStore } from 'pinia';

import { usersApi } from '../api/users-api';

/** The team's accounts, as the Users page and its dialogs use them (administrators only). */
export const useUsersStore = defineStore('users', () => ({
  list: usersApi.list,
  create: usersApi.create,
  update: usersApi.update,
  remove: usersApi.remove,
  invite: usersApi.invite,
  sessions: usersApi.sessions,
  revokeSessions: usersApi.revokeSessions,
}));
