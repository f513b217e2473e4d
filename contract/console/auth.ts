import { z } from 'zod';

import { CONSOLE_BASE, named, nothing } from '../common';
import { route } from '../route';
import { oneTimeCodeSchema, twoFactorStateSchema } from './two-factor';
import { newPasswordSchema, userRoleSchema } from './users';

/** The signed-in person. */
export const userSchema = named(
  'User',
  z.strictObject({
    id: z.number().int().positive(),
    username: z.string(),
    role: userRoleSchema,
    /** `required`: the administrator requires a second factor and this account has none yet. */
    twoFactor: twoFactorStateSchema,
  }),
);
export type User = z.infer<typeof userSchema>;

const credentials = z
  .object({
    username: z.string({ error: 'is required' }).trim().min(1, 'is required').max(100),
    password: z.string({ error: 'is required' }).min(1, 'is required').max(200),
  })
  .strict();

const newPassword = newPasswordSchema;

/** With two-factor on, `code` is a 6-digit code from the app or a recovery code. */
export const loginBody = credentials.extend({ code: oneTimeCodeSchema.optional() });

/** The 401's data when the password was right and a second factor is needed (or was wrong). */
export const twoFactorRequiredSchema = z.strictObject({ twoFactorRequired: z.literal(true) });
/** The first administrator; `setupCode` is checked (403) before the other fields. */
export const setupBody = credentials.extend({ password: newPassword, setupCode: z.string() });
export const passwordBody = z
  .object({ currentPassword: z.string({ error: 'is required' }), newPassword })
  .strict();

export const statusResponse = named(
  'Status',
  z.strictObject({
    setupRequired: z.boolean(),
    version: z.string(),
    /** The user of the session cookie, or null when signed out. */
    user: userSchema.nullable(),
  }),
);
export type Status = z.infer<typeof statusResponse>;

const signedIn = z.strictObject({ user: userSchema });

/** Sign-out's answer: the provider's end-session URL or the proxy's logout URL, else null. */
export const logoutResponse = z.strictObject({ redirectTo: z.string().nullable() });

export const authRoutes = {
  status: route({
    method: 'get',
    path: `${CONSOLE_BASE}/status`,
    summary: 'Whether first-run setup is needed, the version, and the signed-in user (or null)',
    public: true,
    response: statusResponse,
  }),
  setup: route({
    method: 'post',
    path: `${CONSOLE_BASE}/setup`,
    summary:
      'Create the first administrator (only while none exists) with the setup code Herald printed; signs in',
    public: true,
    body: setupBody,
    response: signedIn,
  }),
  login: route({
    method: 'post',
    path: `${CONSOLE_BASE}/login`,
    summary: 'Sign in; sets the session cookie; 429 while a delay runs',
    public: true,
    body: loginBody,
    response: signedIn,
    refusals: {
      401: 'wrong username or password; or, `code: …` with data `{twoFactorRequired: true}`, the code is missing or wrong',
    },
  }),
  desktopLogin: route({
    method: 'get',
    path: `${CONSOLE_BASE}/desktop-login`,
    summary:
      "The desktop window's one-time sign-in: sets the cookie and redirects to / (or to /sign-in with the setup code)",
    public: true,
    query: z.object({ secret: z.string().optional() }),
    answers: 'redirect',
  }),
  logout: route({
    method: 'post',
    path: `${CONSOLE_BASE}/logout`,
    summary:
      "Sign out; the session's live streams end. `redirectTo`: where the browser goes next to end the provider's or the proxy's session too (issue 44), else null",
    response: logoutResponse,
  }),
  me: route({
    method: 'get',
    path: `${CONSOLE_BASE}/me`,
    summary: 'The signed-in user',
    response: signedIn,
  }),
  password: route({
    method: 'post',
    path: `${CONSOLE_BASE}/password`,
    summary:
      "Change the password; the user's other sessions are signed out (the same as POST /account/password)",
    body: passwordBody,
    response: nothing,
  }),
};
