import { defineStore } from 'pinia';

import { signInApi } from '../api/sign-in-api';

/**
 * How people sign in here (issue 44): the sign-in page's methods, asked before anyone is signed
 * in, and Settings → Sign-in (administrators only), which its card loads and saves on its own.
 */
export const useSignInStore = defineStore('signIn', () => ({
  methods: signInApi.methods,
  settings: signInApi.settings,
  update: signInApi.update,
}));
