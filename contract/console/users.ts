import { z } from 'zod';

import { CONSOLE_BASE, idParams, named, nothing, pageOf, timestampSchema } from '../common';
import { route } from '../route';

/**
 * What an account may do (docs/running-for-a-team.md "Roles"): `admin` everything; `editor`
 * the channels, tasks, templates, schedules, tokens, logs and the reader, not users, settings,
 * import, maintenance or backup; `viewer` the dashboard, logs and the reader, read-only.
 */
export const USER_ROLES = ['admin', 'editor', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];
export const userRoleSchema = named(
  'UserRole',
  z.enum(USER_ROLES, { error: 'must be admin, editor or viewer' }),
);

const usernameSchema = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .max(100)
  .regex(/^[^\p{Cc}\s]+$/u, 'must not contain spaces or control characters');

/** A password being set: 8 to 200 characters. */
export const newPasswordSchema = z
  .string({ error: 'is required' })
  .min(8, 'must be at least 8 characters')
  .max(200, 'must be at most 200 characters');

/** An account, as the Users page lists it. */
export const userAccountSchema = named(
  'UserAccount',
  z.strictObject({
    id: z.number().int().positive(),
    username: z.string(),
    role: userRoleSchema,
    disabled: z.boolean(),
    /** Invited and the password not set yet; `inviteExpiresAt` says until when the link works. */
    invited: z.boolean(),
    inviteExpiresAt: timestampSchema.nullable(),
    /** Two-factor sign-in is on. */
    twoFactor: z.boolean(),
    createdAt: timestampSchema,
  }),
);
export type UserAccount = z.infer<typeof userAccountSchema>;

/** A new account: with a password it can sign in at once; without one it gets an invite link. */
export const createUserBody = z
  .object({
    username: usernameSchema,
    role: userRoleSchema,
    password: newPasswordSchema.optional(),
  })
  .strict();

export const updateUserBody = z
  .object({
    username: usernameSchema.optional(),
    role: userRoleSchema.optional(),
    /** Set by an administrator; the account's sessions are signed out. */
    password: newPasswordSchema.optional(),
    /** A disabled account cannot sign in, and its sessions end. */
    disabled: z.boolean({ error: 'must be true or false' }).optional(),
    /** Turns the account's two-factor off (a lost phone); its sessions are signed out. */
    resetTwoFactor: z.literal(true, { error: 'must be true' }).optional(),
  })
  .strict();

/** The one-time link an invited person opens to set a password (24 hours). */
export const inviteSchema = z.strictObject({
  inviteUrl: z.string(),
  inviteExpiresAt: timestampSchema,
});

export const createdUserSchema = userAccountSchema.extend({
  /** Null when the account was given a password. */
  inviteUrl: z.string().nullable(),
});

/** A signed-in browser or window of an account. */
export const sessionInfoSchema = named(
  'SessionInfo',
  z.strictObject({
    /** The session's key (a hash of its cookie, not the cookie). */
    id: z.string(),
    /** The session this request came with. */
    current: z.boolean(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    createdAt: timestampSchema,
    lastSeenAt: timestampSchema.nullable(),
    expiresAt: timestampSchema,
  }),
);
export type SessionInfo = z.infer<typeof sessionInfoSchema>;

export const sessionListSchema = z.strictObject({ items: z.array(sessionInfoSchema) });
export const revokedSchema = z.strictObject({ revoked: z.number().int().min(0) });

export const sessionParams = z.object({
  id: z.string().regex(/^[0-9a-f]{64}$/, 'must be a session id'),
});

export const userRoutes = {
  list: route({
    method: 'get',
    path: `${CONSOLE_BASE}/users`,
    summary: 'List the accounts',
    response: pageOf(userAccountSchema),
  }),
  create: route({
    method: 'post',
    path: `${CONSOLE_BASE}/users`,
    summary: 'Create an account; without a password the answer carries a one-time invite link',
    body: createUserBody,
    response: createdUserSchema,
    refusals: { 409: 'the username is taken' },
  }),
  update: route({
    method: 'patch',
    path: `${CONSOLE_BASE}/users/{id}`,
    summary:
      'Rename, change the role, set the password, disable/enable an account, or reset its two-factor',
    params: idParams,
    body: updateUserBody,
    response: userAccountSchema,
    refusals: { 409: 'the last administrator cannot be disabled or demoted; the name is taken' },
  }),
  remove: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/users/{id}`,
    summary: 'Delete an account and end its sessions',
    params: idParams,
    response: nothing,
    refusals: { 409: 'the last administrator cannot be deleted' },
  }),
  invite: route({
    method: 'post',
    path: `${CONSOLE_BASE}/users/{id}/invite`,
    summary: 'A new invite link for an account that has not set its password (the old one stops)',
    params: idParams,
    response: inviteSchema,
  }),
  sessions: route({
    method: 'get',
    path: `${CONSOLE_BASE}/users/{id}/sessions`,
    summary: "An account's sessions",
    params: idParams,
    response: sessionListSchema,
  }),
  revokeSessions: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/users/{id}/sessions`,
    summary: "Sign out every session of an account (an administrator's own included)",
    params: idParams,
    response: revokedSchema,
  }),
};
