import { Router, type Request, type Response } from 'express';

import { consoleRoutes, type AuditAction } from '../../../../contract';
import { SESSION_COOKIE, type SessionUser } from '../../../features/auth/auth-service';
import { AppError } from '../../../lib/errors';
import type { SessionList } from '../../../features/auth/session-list';
import type { UserService } from '../../../features/auth/user-service';
import { consoleRoutesOn } from '../console-route';
import type { LiveStreams } from '../events/live-streams';

const routes = consoleRoutes.account;

/** The 403 for setting a password through an invite while password sign-in is off. */
const INVITE_PASSWORD_OFF =
  "password sign-in is switched off here; sign in with your organisation's single sign-on instead, and this account is yours";

export interface AccountRouterDeps {
  users: UserService;
  sessions: SessionList;
}

/** What the account routes borrow from the sign-in routes, so both sign in and change passwords alike. */
export interface SignInParts {
  signIn(req: Request, res: Response, user: SessionUser): Promise<void>;
  changeOwnPassword(
    req: Request,
    res: Response,
    current: string,
    next: string,
    currentField: string,
  ): Promise<void>;
  /** Records a sign-in kind of event in the audit log, as the sign-in routes do. */
  recordAuth(req: Request, action: AuditAction, user: SessionUser | null): Promise<void>;
  /** False while password sign-in is off for this username (Settings → Sign-in). */
  passwordAllowed?(username: string): Promise<boolean>;
}

/** The invite link's routes, answered without a session. */
export function createInviteRouter(deps: AccountRouterDeps, parts: SignInParts): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.invite, async ({ query }) => {
    const user = await deps.users.invitee(query.token ?? '');
    return { username: user.username, role: user.role };
  });
  serve(routes.acceptInvite, async ({ body }, req, res) => {
    // With password sign-in off, an invite is taken up by signing in with the provider (the
    // account is bound then); only the break-glass account still sets a password here.
    const invitee = await deps.users.invitee(body.token);
    if (parts.passwordAllowed && !(await parts.passwordAllowed(invitee.username))) {
      throw new AppError(403, INVITE_PASSWORD_OFF);
    }
    const user = await deps.users.acceptInvite(body.token, body.password);
    await parts.signIn(req, res, user);
    await parts.recordAuth(req, 'user.accept-invite', user);
    return { user };
  });
  return router;
}

/** The signed-in person's own password and sessions. */
export function createAccountRouter(
  deps: AccountRouterDeps,
  parts: SignInParts,
  streams: LiveStreams,
): Router {
  const router = Router();
  const serve = consoleRoutesOn(router);
  serve(routes.password, async ({ body }, req, res) => {
    await parts.changeOwnPassword(req, res, body.current, body.new, 'current');
    return null;
  });
  serve(routes.sessions, async (_input, req) => ({
    items: await deps.sessions.of(req.user!.id, req.sessionKey),
  }));
  serve(routes.revokeSessions, async (_input, req) => {
    const revoked = await deps.sessions.revokeAll(req.user!.id, req.sessionKey);
    streams.endUserExcept(req.user!.id, req.sessionKey!);
    return { revoked };
  });
  serve(routes.revokeSession, async ({ params }, req, res) => {
    const revoked = await deps.sessions.revokeOne(req.user!.id, params.id);
    // Only a session this revoked, and so the caller's own: any other id ends no one's stream.
    if (revoked > 0) streams.endSessionOf(req.user!.id, params.id);
    // Revoking this very session is signing out: the cookie goes too.
    if (params.id === req.sessionKey) res.clearCookie(SESSION_COOKIE, { path: '/' });
    return { revoked };
  });
  return router;
}
