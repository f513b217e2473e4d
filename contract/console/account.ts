import { z } from 'zod';

import { CONSOLE_BASE, nothing } from '../common';
import { route } from '../route';
import { userSchema } from './auth';
import {
  newPasswordSchema,
  revokedSchema,
  sessionListSchema,
  sessionParams,
  userRoleSchema,
} from './users';

export const accountPasswordBody = z
  .object({ current: z.string({ error: 'is required' }).max(200), new: newPasswordSchema })
  .strict();

export const inviteQuery = z.object({ token: z.string().max(200).optional() });
export const acceptInviteBody = z
  .object({
    token: z.string({ error: 'is required' }).min(1, 'is required').max(200),
    password: newPasswordSchema,
  })
  .strict();

/** The signed-in person's own account: password and sessions. */
export const accountRoutes = {
  password: route({
    method: 'post',
    path: `${CONSOLE_BASE}/account/password`,
    summary: 'Change your password; your other sessions are signed out',
    body: accountPasswordBody,
    response: nothing,
  }),
  sessions: route({
    method: 'get',
    path: `${CONSOLE_BASE}/account/sessions`,
    summary: 'Your sessions, this one marked current',
    response: sessionListSchema,
  }),
  revokeSessions: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/account/sessions`,
    summary: 'Sign out your other sessions (this one stays)',
    response: revokedSchema,
  }),
  revokeSession: route({
    method: 'delete',
    path: `${CONSOLE_BASE}/account/sessions/{id}`,
    summary: 'Sign out one of your sessions',
    params: sessionParams,
    response: revokedSchema,
  }),
  invite: route({
    method: 'get',
    path: `${CONSOLE_BASE}/invite`,
    summary: 'Whose invite link this is, while it works',
    public: true,
    query: inviteQuery,
    response: z.strictObject({ username: z.string(), role: userRoleSchema }),
    refusals: { 404: 'the link is unknown, used or expired' },
  }),
  acceptInvite: route({
    method: 'post',
    path: `${CONSOLE_BASE}/invite`,
    summary: 'Set your password from an invite link; signs in (the link then stops working)',
    public: true,
    body: acceptInviteBody,
    response: z.strictObject({ user: userSchema }),
    refusals: { 404: 'the link is unknown, used or expired' },
  }),
};
