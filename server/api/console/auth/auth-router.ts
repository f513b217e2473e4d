import type { CookieOptions, NextFunction, Request, Response } from 'express';
import { Router } from 'express';

import { consoleRoutes, type AuditAction } from '../../../../contract';
import { readCookie } from '../../../lib/cookies';
import { AppError, conflict, unauthorized } from '../../../lib/errors';
import type { HeraldParts } from '../../../parts';
import { consoleRoutesOn } from '../console-route';
import type { LiveStreams } from '../events/live-streams';
import type { AuditLog } from '../../../features/audit/audit-log';
import { actorOf, recordDone } from '../audit/audit-recorder';
import {
  type AuthService,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  sessionKey,
  type SessionUser,
  type SessionVia,
} from '../../../features/auth/auth-service';
import { type TwoFactorService, wrongCode } from '../../../features/auth/two-factor-service';
import { LoginThrottle, describeWait } from '../../../features/auth/login-throttle';
import type { AuthProxySignIn } from '../../../features/sso/auth-proxy';
import {
  USER_POLICY,
  addressKey,
  passwordKeys,
  type SignInThrottle,
  type ThrottleKey,
} from '../../../domain/sign-in-throttle';

const routes = consoleRoutes.auth;

export { readCookie };

declare module 'express-serve-static-core' {
  interface Request {
    user?: SessionUser;
    /** The signed-in session, by the hash it is stored under. */
    sessionKey?: string;
  }
}

/** The 403 for a password sign-in while Settings → Sign-in has passwords switched off. */
export const PASSWORD_SIGN_IN_OFF =
  "password sign-in is switched off here; sign in with your organisation's single sign-on instead";

/** Sets Retry-After and builds the 429 that says when to try again. */
function tooManyTries(res: Response, waitMs: number, what: string): AppError {
  res.setHeader('Retry-After', String(Math.ceil(waitMs / 1000)));
  return new AppError(429, `too many ${what}; try again in ${describeWait(waitMs)}`);
}

/** What the session routes use: the accounts, and the secrets that create the first session. */
export type AuthRouterDeps = Pick<
  HeraldParts,
  'clock' | 'version' | 'desktopSecret' | 'setupCode'
> & {
  auth: AuthService;
  twoFactor: TwoFactorService;
  /** Where failures are counted; unset, this process's memory (one process, SQLite). */
  throttle?: SignInThrottle;
  /**
   * Settings → Sign-in (features/sso/): whether passwords still sign in (else only the
   * break-glass administrator), and where sign-out sends a provider's session.
   */
  sso?: {
    passwordAllowed(username: string): Promise<{ allowed: boolean; everyone: boolean }>;
    signOutRedirect(via: SessionVia): Promise<string | null>;
  };
  /** The trusted reverse proxy's header sign-in (HERALD_AUTH_PROXY_HEADER), or none. */
  proxy?: AuthProxySignIn | null;
};

/** Session routes plus the middleware that guards the rest of the console API. */
export function createAuth(deps: AuthRouterDeps, streams: LiveStreams, audit: AuditLog) {
  const { auth } = deps;
  // Sign-ins are recorded here rather than by the route table: only this router knows the
  // name a failed attempt gave and who a new session belongs to.
  const recordAuth = (req: Request, action: AuditAction, user: SessionUser | null, name = '') =>
    recordDone(audit, {
      who: user
        ? { ...actorOf(req), userId: user.id, username: user.username }
        : actorOf(req, name),
      action,
      targetType: 'user',
      targetId: user?.id ?? null,
      targetName: user?.username ?? name,
    });
  // One throttle for every way of guessing a secret, so sign-in, password change and setup
  // code share the per-address count.
  const throttle = deps.throttle ?? new LoginThrottle(deps.clock);
  const router = Router();
  const serve = consoleRoutesOn(router);

  const cookieOptions = (req: Request): CookieOptions => ({
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: '/',
    maxAge: SESSION_TTL_MS,
  });

  /** Opens a session for the person; `via` says how when it was not a password (SSO). */
  const signIn = async (req: Request, res: Response, user: SessionUser, via?: SessionVia) => {
    const token = await auth.createSession(
      user.id,
      { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null },
      via,
    );
    res.cookie(SESSION_COOKIE, token, cookieOptions(req));
  };

  /**
   * The person a trusted proxy's header names, signed into a session of their own (the cookie
   * is set when it is new); null without the header, or with it from anyone but the proxy.
   */
  const proxySession = async (req: Request, res: Response) => {
    if (!deps.proxy) return null;
    const signed = await deps.proxy.signIn({
      peer: req.socket.remoteAddress,
      headers: req.headers,
      cookieToken: readCookie(req, SESSION_COOKIE),
      origin: { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null },
    });
    if (!signed) return null;
    if (signed.opened) res.cookie(SESSION_COOKIE, signed.token, cookieOptions(req));
    if (signed.ended) streams.endSession(signed.ended);
    if (signed.roleChanged) streams.endUser(signed.user.id);
    return signed;
  };

  // Also names the signed-in user (or null), so a page load learns everything without a 401
  // that browsers would log as an error.
  serve(routes.status, async (_input, req, res) => ({
    setupRequired: await auth.setupRequired(),
    version: deps.version,
    user:
      (await proxySession(req, res))?.user ??
      (await auth.userForSession(readCookie(req, SESSION_COOKIE))),
  }));

  // The code is checked before the fields, so a caller without it learns nothing else.
  const checkSetupCode = async (req: Request, res: Response, next: NextFunction) => {
    if (!(await auth.setupRequired())) throw conflict('Herald is already set up; sign in instead');
    const body: unknown = req.body;
    const supplied =
      typeof body === 'object' && body !== null && 'setupCode' in body ? body.setupCode : undefined;
    if (typeof supplied !== 'string' || supplied.trim() === '') {
      throw new AppError(
        403,
        'setupCode: is required; Herald printed a one-time setup code in its terminal (or log) when it started',
      );
    }
    const keys: ThrottleKey[] = [{ key: 'setup-code', policy: USER_POLICY }, addressKey(req.ip)];
    const wait = await throttle.begin(keys);
    if (wait > 0) throw tooManyTries(res, wait, 'wrong setup codes');
    if (!deps.setupCode.matches(supplied.slice(0, 100))) {
      throw new AppError(
        403,
        'setupCode: is not correct; use the code Herald printed in its terminal (or log) when it started',
      );
    }
    await throttle.succeed(keys);
    next();
  };

  serve(
    routes.setup,
    async ({ body }, req, res) => {
      const user = await auth.setup(body.username, body.password);
      deps.setupCode.expire();
      await signIn(req, res, user);
      await recordAuth(req, 'user.create', user);
      return { user };
    },
    { before: [checkSetupCode] },
  );

  const checkSecondFactor = async (user: SessionUser, code: string | undefined) => {
    const needed = { twoFactorRequired: true };
    if (!code) {
      throw new AppError(
        401,
        'code: is required; this account signs in with a code from its authenticator app (or a recovery code)',
        needed,
      );
    }
    if (!(await deps.twoFactor.verify(user.id, code))) {
      throw new AppError(401, wrongCode().message, needed);
    }
  };

  serve(routes.login, async ({ body }, req, res) => {
    const keys = passwordKeys(body.username, req.ip);
    const wait = await throttle.begin(keys);
    if (wait > 0) throw tooManyTries(res, wait, 'failed sign-ins');
    // Password sign-in switched off (Settings → Sign-in): refused before the password is
    // checked, so it tells nothing about the password; only the break-glass account goes on.
    const passwordAllowed = deps.sso ? await deps.sso.passwordAllowed(body.username) : null;
    if (passwordAllowed && !passwordAllowed.allowed) {
      await recordAuth(req, 'auth.sign-in-failed', null, body.username);
      throw new AppError(403, PASSWORD_SIGN_IN_OFF);
    }
    const user = await auth.verify(body.username, body.password);
    if (!user) {
      await recordAuth(req, 'auth.sign-in-failed', null, body.username);
      throw unauthorized('wrong username or password');
    }
    // The break-glass account keeps its password only while it administers Herald.
    if (passwordAllowed && !passwordAllowed.everyone && user.role !== 'admin') {
      await recordAuth(req, 'auth.sign-in-failed', null, body.username);
      throw new AppError(403, PASSWORD_SIGN_IN_OFF);
    }
    // Without the right code the try stays counted: otherwise someone who has the password
    // could clear the count between wrong codes by asking once without one.
    if (user.twoFactor === 'on') {
      try {
        await checkSecondFactor(user, body.code);
      } catch (err) {
        // Asking for the code is a step, not a failure; a wrong code is one.
        if (body.code) await recordAuth(req, 'auth.sign-in-failed', null, body.username);
        throw err;
      }
    }
    await throttle.succeed(keys);
    await signIn(req, res, user);
    await recordAuth(req, 'auth.sign-in', user);
    return { user };
  });

  // The desktop window signs in with a secret the main process handed to the server: a GET,
  // because the window simply navigates here; the secret works once.
  serve(routes.desktopLogin, async ({ query }, req, res) => {
    const secret = query.secret ?? '';
    const expected = deps.desktopSecret.value;
    const user = await auth.firstUser();
    if (!expected || secret.length === 0 || secret !== expected) {
      throw unauthorized('desktop sign-in secret is invalid or was already used');
    }
    deps.desktopSecret.value = null;
    if (user) {
      await signIn(req, res, user);
      await recordAuth(req, 'auth.sign-in', user);
      res.redirect(302, '/');
      return;
    }
    // No administrator yet: the window is Herald's own, so it gets the setup code filled in.
    const code = deps.setupCode.display();
    res.redirect(302, code ? `/sign-in?code=${encodeURIComponent(code)}` : '/');
  });

  const requireSession = async (req: Request, res: Response, next: NextFunction) => {
    const proxied = await proxySession(req, res);
    if (proxied) {
      req.user = proxied.user;
      req.sessionKey = sessionKey(proxied.token);
      return next();
    }
    const token = readCookie(req, SESSION_COOKIE);
    const user = await auth.userForSession(token);
    if (!user || !token) throw unauthorized('not signed in');
    req.user = user;
    req.sessionKey = sessionKey(token);
    next();
  };

  const guarded = Router();
  guarded.use(requireSession);
  const serveGuarded = consoleRoutesOn(guarded);

  serveGuarded(routes.logout, async (_input, req, res) => {
    const via = await auth.endSession(readCookie(req, SESSION_COOKIE));
    streams.endSession(req.sessionKey!);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    await recordAuth(req, 'auth.sign-out', req.user!);
    // A provider's session (OpenID Connect) ends at its end_session_endpoint; a trusted
    // proxy's at HERALD_AUTH_PROXY_LOGOUT_URL.
    const providerLogout = via && deps.sso ? await deps.sso.signOutRedirect(via) : null;
    return {
      redirectTo:
        providerLogout ?? deps.proxy?.logoutRedirect(req.socket.remoteAddress, req.headers) ?? null,
    };
  });

  serveGuarded(routes.me, (_input, req) => ({ user: req.user! }));

  /** Changing one's own password: guessing the current one with a stolen session is slowed like signing in. */
  const changeOwnPassword = async (
    req: Request,
    res: Response,
    current: string,
    next: string,
    currentField: string,
  ) => {
    const keys = passwordKeys(req.user!.username, req.ip);
    const wait = await throttle.begin(keys);
    if (wait > 0) throw tooManyTries(res, wait, 'wrong current passwords');
    await auth.changePassword(
      req.user!,
      current,
      next,
      readCookie(req, SESSION_COOKIE),
      currentField,
    );
    await throttle.succeed(keys);
    await recordDone(audit, {
      who: actorOf(req),
      action: 'user.update',
      targetType: 'user',
      targetId: req.user!.id,
      targetName: req.user!.username,
      changes: [{ field: 'password', changed: true }],
    });
    // Streams opened under the old password end; this session's own reconnect on their own.
    streams.endUser(req.user!.id);
  };

  /**
   * Checks a secret the signed-in person typed (their password, a code) under the same
   * throttle as signing in: a stolen session must not make guessing any faster.
   */
  const throttledCheck = async (
    req: Request,
    res: Response,
    what: string,
    check: () => Promise<boolean>,
  ): Promise<boolean> => {
    const keys = passwordKeys(req.user!.username, req.ip);
    const wait = await throttle.begin(keys);
    if (wait > 0) throw tooManyTries(res, wait, what);
    const right = await check();
    if (right) await throttle.succeed(keys);
    return right;
  };

  serveGuarded(routes.password, async ({ body }, req, res) => {
    await changeOwnPassword(req, res, body.currentPassword, body.newPassword, 'currentPassword');
    return null;
  });

  return {
    router,
    guarded,
    service: auth,
    signIn,
    changeOwnPassword,
    recordAuth,
    throttledCheck,
    /** Whether this username may set or use a password now (Settings → Sign-in). */
    passwordAllowed: async (username: string) =>
      deps.sso ? (await deps.sso.passwordAllowed(username)).allowed : true,
  };
}
