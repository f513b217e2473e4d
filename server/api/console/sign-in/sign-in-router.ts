import type { Request, Response } from 'express';
import { Router } from 'express';

import { consoleRoutes, type AuditAction, type AuditChange } from '../../../../contract';
import type { SecretBox } from '../../../crypto/secret-box';
import type { AuditLog } from '../../../features/audit/audit-log';
import { diffStates } from '../../../features/audit/audit-diff';
import type { SessionUser, SessionVia } from '../../../features/auth/auth-service';
import type { OidcClient } from '../../../features/sso/oidc-client';
import {
  PENDING_COOKIE,
  PENDING_COOKIE_PATH,
  PENDING_TTL_MS,
  localPath,
  openPendingLogin,
  sealPendingLogin,
} from '../../../features/sso/pending-login';
import {
  oidcConfigured,
  type EffectiveSignIn,
  type SignInConfig,
} from '../../../features/sso/sign-in-config';
import {
  SsoAccounts,
  groupsOf,
  usernameOf,
  type SsoRefusal,
} from '../../../features/sso/sso-accounts';
import type { Clock } from '../../../lib/clock';
import { readCookie } from '../../../lib/cookies';
import { errorMessage } from '../../../lib/errors';
import { createLogger } from '../../../lib/logger';
import type { WriteLock } from '../../../db/writer';
import { actorOf, recordDone } from '../audit/audit-recorder';
import { consoleRoutesOn } from '../console-route';
import type { LiveStreams } from '../events/live-streams';

const routes = consoleRoutes.signIn;
const log = createLogger('sso');

/**
 * Why an OpenID Connect sign-in landed on the sign-in page instead (`/sign-in?error=<code>`;
 * docs/console-api.md "Signing in with OpenID Connect"): the page explains each one.
 */
export type SsoErrorCode = SsoRefusal | 'sso-failed' | 'sso-state';

/** The name an SSO account is given when the provider sends no username claim at all. */
const FALLBACK_USERNAME = 'sso-user';

export interface SignInRouterDeps {
  config: SignInConfig;
  oidc: OidcClient;
  secrets: SecretBox;
  clock: Clock;
  writeLock: WriteLock;
  audit: AuditLog;
}

/** What the sign-in routes use of the console's session routes (auth/auth-router.ts). */
export interface SessionOpener {
  signIn(req: Request, res: Response, user: SessionUser, via?: SessionVia): Promise<void>;
}

/**
 * Settings → Sign-in and signing in with OpenID Connect (issue 44). `open` holds the routes
 * anyone may call (the sign-in page's methods, the provider's round trip); `admin` the settings,
 * mounted behind the session check.
 */
export function createSignInRouters(
  deps: SignInRouterDeps,
  sessions: SessionOpener,
  streams: LiveStreams,
) {
  const { config, audit, oidc } = deps;
  const accounts = new SsoAccounts({ writeLock: deps.writeLock });
  const open = Router();
  const admin = Router();
  const serveOpen = consoleRoutesOn(open);
  const serveAdmin = consoleRoutesOn(admin);

  const provider = (issuer: string): AuditChange => ({
    field: 'provider',
    before: null,
    after: issuer,
  });

  const record = (
    req: Request,
    action: AuditAction,
    user: SessionUser | null,
    name: string,
    changes: AuditChange[],
  ) =>
    recordDone(audit, {
      who: user
        ? { ...actorOf(req), userId: user.id, username: user.username }
        : actorOf(req, name),
      action,
      targetType: 'user',
      targetId: user?.id ?? null,
      targetName: user?.username ?? name,
      changes,
    });

  /** Lands on the sign-in page with the code it explains; the reason goes to the log and the audit. */
  const refuse = async (
    req: Request,
    res: Response,
    s: EffectiveSignIn,
    code: SsoErrorCode,
    reason: string,
    name = '',
  ) => {
    log.warn(`OpenID Connect sign-in refused (${code}): ${reason}`);
    await record(req, 'auth.sign-in-failed', null, name, [
      provider(s.issuer),
      { field: 'reason', before: null, after: code },
    ]);
    res.redirect(302, `/sign-in?error=${code}`);
  };

  serveOpen(routes.methods, () => config.methods());

  serveOpen(routes.oidcLogin, async ({ query }, req, res) => {
    const s = await config.effective();
    if (!oidcConfigured(s)) {
      await refuse(req, res, s, 'sso-failed', 'OpenID Connect is not set up');
      return;
    }
    let started: Awaited<ReturnType<OidcClient['start']>>;
    try {
      started = await oidc.start(s, config.redirectUri(), localPath(query.next));
    } catch (err) {
      await refuse(req, res, s, 'sso-failed', `discovery at ${s.issuer}: ${errorMessage(err)}`);
      return;
    }
    res.cookie(PENDING_COOKIE, sealPendingLogin(deps.secrets, started.pending, deps.clock.now()), {
      httpOnly: true,
      // The provider's redirect back is a cross-site top-level GET: Lax lets the cookie come.
      sameSite: 'lax',
      secure: req.secure,
      path: PENDING_COOKIE_PATH,
      maxAge: PENDING_TTL_MS,
    });
    res.redirect(302, started.url);
  });

  serveOpen(routes.oidcCallback, async ({ query }, req, res) => {
    const pending = openPendingLogin(
      deps.secrets,
      readCookie(req, PENDING_COOKIE),
      deps.clock.now(),
    );
    // Used once: whatever happens next, this browser starts over for another try.
    res.clearCookie(PENDING_COOKIE, { path: PENDING_COOKIE_PATH });
    const s = await config.effective();
    if (!oidcConfigured(s)) {
      await refuse(req, res, s, 'sso-failed', 'OpenID Connect is not set up');
      return;
    }
    if (!pending) {
      await refuse(
        req,
        res,
        s,
        'sso-state',
        'no sign-in was started in this browser, or it is older than 10 minutes',
      );
      return;
    }
    if (pending.issuer !== s.issuer || pending.clientId !== s.clientId) {
      await refuse(req, res, s, 'sso-state', 'the provider settings changed during the sign-in');
      return;
    }
    if (query.state !== pending.state) {
      await refuse(
        req,
        res,
        s,
        'sso-state',
        'the state does not match the sign-in this browser started',
      );
      return;
    }
    if (query.error !== undefined) {
      const said = query.error_description ? `: ${query.error_description}` : '';
      await refuse(req, res, s, 'sso-failed', `the provider answered ${query.error}${said}`);
      return;
    }
    // The address the provider was given, whatever Host this request came in with (a proxy).
    const callbackUrl = new URL(config.redirectUri());
    callbackUrl.search = new URLSearchParams(query).toString();
    let identity: Awaited<ReturnType<OidcClient['finish']>>;
    try {
      identity = await oidc.finish(s, callbackUrl, pending);
    } catch (err) {
      await refuse(req, res, s, 'sso-failed', errorMessage(err));
      return;
    }
    const username = usernameOf(identity.claims, s.usernameClaim) ?? FALLBACK_USERNAME;
    const outcome = await accounts.signIn(
      {
        issuer: identity.issuer,
        subject: identity.subject,
        username,
        groups: groupsOf(identity.claims, s.groupsClaim),
      },
      { admin: s.adminGroups, editor: s.editorGroups, viewer: s.viewerGroups },
      s.autoCreate,
    );
    if ('refused' in outcome) {
      await refuse(
        req,
        res,
        s,
        outcome.refused,
        `${outcome.username} (${identity.subject})`,
        outcome.username,
      );
      return;
    }
    const { user, how, roleBefore } = outcome;
    if (how === 'created') {
      await record(req, 'user.create', user, user.username, [
        provider(identity.issuer),
        { field: 'role', before: null, after: user.role },
      ]);
    }
    if (how === 'bound') {
      await record(req, 'user.update', user, user.username, [provider(identity.issuer)]);
    }
    if (roleBefore) {
      await record(req, 'user.update', user, user.username, [
        { field: 'role', before: roleBefore, after: user.role },
      ]);
      // Streams opened under the old role were authorised for it.
      streams.endUser(user.id);
    }
    await sessions.signIn(req, res, user, { method: 'oidc', idToken: identity.idToken ?? null });
    await record(req, 'auth.sign-in', user, user.username, [provider(identity.issuer)]);
    res.redirect(302, pending.next);
  });

  serveAdmin(routes.settings, () => config.view());

  serveAdmin(routes.updateSettings, async ({ body }, req) => {
    const { settings, before, after } = await config.update(body);
    // Recorded here, not by the route table: only the resolver knows the secret's fingerprint.
    const changes = diffStates(before, after);
    if (changes.length > 0) {
      await recordDone(audit, {
        who: actorOf(req),
        action: 'settings.update',
        targetType: 'settings',
        targetId: null,
        targetName: 'sign-in',
        changes,
      });
    }
    return settings;
  });

  return { open, admin };
}
