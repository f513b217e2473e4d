import type { CookieOptions, NextFunction, Request, Response } from 'express';
import { Router } from 'express';
import { z } from 'zod';

import type { AppContext } from '../../../context';
import { readCookie } from '../../../lib/cookies';
import { ok } from '../../../lib/envelope';
import { AppError, unauthorized } from '../../../lib/errors';
import { parseInput } from '../../../lib/validation';
import { AuthService, SESSION_COOKIE, SESSION_TTL_MS, type SessionUser } from './auth-service';
import { LoginThrottle } from './login-throttle';

const credentialsSchema = z
  .object({
    username: z.string({ error: 'is required' }).trim().min(1, 'is required').max(100),
    password: z.string({ error: 'is required' }).min(1, 'is required').max(200),
  })
  .strict();

const newPassword = z
  .string({ error: 'is required' })
  .min(8, 'must be at least 8 characters')
  .max(200);

export { readCookie };

declare module 'express-serve-static-core' {
  interface Request {
    user?: SessionUser;
  }
}

/** Session routes plus the middleware that guards the rest of the console API. */
export function createAuth(ctx: AppContext) {
  const auth = new AuthService(ctx);
  const throttle = new LoginThrottle(() => ctx.clock.now());
  const router = Router();

  const cookieOptions = (req: Request): CookieOptions => ({
    httpOnly: true,
    sameSite: 'strict',
    secure: req.secure,
    path: '/',
    maxAge: SESSION_TTL_MS,
  });

  const signIn = async (req: Request, res: Response, user: SessionUser) => {
    const token = await auth.createSession(user.id);
    res.cookie(SESSION_COOKIE, token, cookieOptions(req));
  };

  // Also names the signed-in user (or null), so a page load learns everything without a 401
  // that browsers would log as an error.
  router.get('/status', async (req, res) => {
    ok(res, {
      setupRequired: await auth.setupRequired(),
      version: ctx.version,
      user: await auth.userForSession(readCookie(req, SESSION_COOKIE)),
    });
  });

  router.post('/setup', async (req, res) => {
    const body = parseInput(credentialsSchema.extend({ password: newPassword }), req.body);
    const user = await auth.setup(body.username, body.password);
    await signIn(req, res, user);
    ok(res, { user });
  });

  router.post('/login', async (req, res) => {
    const body = parseInput(credentialsSchema, req.body);
    const ip = req.ip ?? 'unknown';
    const wait = throttle.retryAfterMs(ip, body.username);
    if (wait > 0) {
      res.setHeader('Retry-After', String(Math.ceil(wait / 1000)));
      throw new AppError(
        429,
        `too many failed sign-ins; try again in ${Math.ceil(wait / 60_000)} minutes`,
      );
    }
    const user = await auth.verify(body.username, body.password);
    if (!user) {
      throttle.fail(ip, body.username);
      throw unauthorized('wrong username or password');
    }
    throttle.succeed(ip, body.username);
    await signIn(req, res, user);
    ok(res, { user });
  });

  // The desktop window signs in with a secret the main process handed to the server: a GET,
  // because the window simply navigates here; the secret works once.
  router.get('/desktop-login', async (req, res) => {
    const secret = typeof req.query.secret === 'string' ? req.query.secret : '';
    const expected = ctx.desktopSecret.value;
    const user = await auth.firstUser();
    if (!expected || secret.length === 0 || secret !== expected) {
      throw unauthorized('desktop sign-in secret is invalid or was already used');
    }
    ctx.desktopSecret.value = null;
    if (user) await signIn(req, res, user);
    res.redirect(302, '/');
  });

  const requireSession = async (req: Request, _res: Response, next: NextFunction) => {
    const user = await auth.userForSession(readCookie(req, SESSION_COOKIE));
    if (!user) throw unauthorized('not signed in');
    req.user = user;
    next();
  };

  const guarded = Router();
  guarded.use(requireSession);

  guarded.post('/logout', async (req, res) => {
    await auth.endSession(readCookie(req, SESSION_COOKIE));
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    ok(res, null);
  });

  guarded.get('/me', (req, res) => {
    ok(res, { user: req.user });
  });

  guarded.post('/password', async (req, res) => {
    const body = parseInput(
      z.object({ currentPassword: z.string({ error: 'is required' }), newPassword }).strict(),
      req.body,
    );
    await auth.changePassword(
      req.user!,
      body.currentPassword,
      body.newPassword,
      readCookie(req, SESSION_COOKIE),
    );
    ok(res, null);
  });

  return { router, guarded, service: auth };
}
