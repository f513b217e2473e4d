import type { consoleRoutes, SignInSettingsPatch } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.signIn;

/** How people sign in (the sign-in page, before anyone is signed in) and Settings → Sign-in. */
export const signInApi = {
  methods: () => call<Routes['methods']>('GET', '/sign-in/methods', { redirectOn401: false }),
  settings: () => call<Routes['settings']>('GET', '/settings/sign-in'),
  update: (patch: SignInSettingsPatch) =>
    call<Routes['updateSettings']>('PUT', '/settings/sign-in', { body: patch }),
};
