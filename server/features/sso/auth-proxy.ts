import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIPv4, isIPv6 } from 'node:net';

import type { SignInSettings, UserRole } from '../../../contract';
import { User } from '../../db/models';
import type { AuthProxyConfig } from '../../config/auth-proxy-config';
import { AppError, errorMessage } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import type { HeraldParts } from '../../parts';
import type { AuditLog, AuditRecord } from '../audit/audit-log';
import {
  type AuthService,
  type SessionOrigin,
  type SessionUser,
  sessionKey,
} from '../auth/auth-service';
import { type GroupRoles, roleForGroups } from './group-roles';

const log = createLogger('auth-proxy');

/** The audit log's name for this way of signing in (an `auth.sign-in` entry's `provider`). */
export const PROXY_PROVIDER = 'proxy';

/** What sign-out answers as `redirectTo` for a session the proxy signed in, and the sign-in page's `proxyLogoutUrl`. */
export function proxyLogoutUrl(config: AuthProxyConfig | null): string | null {
  return config?.logoutUrl ?? null;
}

/** Settings → Sign-in's read-only `proxy` (the environment sets it, the console only shows it). */
export function proxySettings(config: AuthProxyConfig | null): SignInSettings['proxy'] {
  if (!config) return null;
  return {
    header: config.names.header,
    groupsHeader: config.names.groupsHeader,
    logoutUrl: config.logoutUrl,
    autoCreate: config.autoCreate,
  };
}

/** Usernames a proxy may give: longer ones are refused, not cut (two could then meet). */
export const PROXY_USERNAME_MAX = 64;

/** Express's names for address ranges (HERALD_TRUST_PROXY), as proxy-addr spells them out. */
const RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * Whether an address is one of HERALD_TRUST_PROXY's. Given the socket's own peer, never
 * X-Forwarded-For: a header the client writes cannot make the client a proxy.
 */
export function trustedPeers(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries.flatMap((e) => RANGES[e] ?? [e])) {
    const [address = '', prefix] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => {
    if (!address) return false;
    // A server listening on '::' sees IPv4 clients as ::ffff:a.b.c.d.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped) return list.check(mapped, 'ipv4');
    if (isIPv4(address)) return list.check(address, 'ipv4');
    return isIPv6(address) && list.check(address, 'ipv6');
  };
}

/** What the header signing-in needs of a request: no Express, so it is tested and reused alike. */
export interface ProxyRequest {
  /** The connection's remote address (`req.socket.remoteAddress`). */
  peer: string | undefined;
  headers: IncomingHttpHeaders;
  /** The session cookie's token, if the browser sent one. */
  cookieToken: string | undefined;
  /** For the new session and the audit log (behind the proxy, the client's address). */
  origin: SessionOrigin;
}

export interface ProxySignedIn {
  user: SessionUser;
  token: string;
  /** A new session: the browser gets `token` as its cookie. */
  opened: boolean;
  /** The key of the session the cookie held, ended because the header names someone else. */
  ended: string | null;
  /** The groups changed the role: streams opened under the old one end. */
  roleChanged: boolean;
}

export type AuthProxyDeps = Pick<HeraldParts, 'writeLock'> & {
  config: AuthProxyConfig;
  /** HERALD_TRUST_PROXY's entries: the config refuses the header without them. */
  trustProxy: readonly string[];
  auth: AuthService;
  audit: AuditLog;
  /** Which groups make which role (HERALD_OIDC_*_GROUPS over Settings → Sign-in). */
  groupRoles: () => Promise<GroupRoles>;
};

/** Addresses whose ignored header was logged: one line each, and no more than this many lines. */
const MAX_LOGGED_PEERS = 1000;

const refused = (why: string) => new AppError(403, why);

/**
 * A header value as text: Node reads header bytes as Latin-1, and proxies send names in UTF-8.
 * A value that is not UTF-8 stays as read (and is then checked like any other).
 */
function headerText(value: string | string[] | undefined): string {
  const joined = Array.isArray(value) ? value.join(', ') : (value ?? '');
  if (!/[\x80-\xff]/.test(joined)) return joined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(joined, 'latin1'));
  } catch {
    return joined;
  }
}

/**
 * Groups as the proxies send them: Authelia and oauth2-proxy comma-separated (`admins,dev`),
 * Authentik pipe-separated (`admins|dev`). Either separator splits, so a group name holding
 * one cannot be mapped.
 */
export function proxyGroups(value: string): string[] {
  return value
    .split(/[,|]/)
    .map((group) => group.trim())
    .filter((group) => group.length > 0);
}

/**
 * Signs people in from the trusted reverse proxy's header (issue 44 §2), into a real Herald
 * session: live streams, the audit log and the list of sessions then work as for a password.
 * The proxy is the authority: the account with the header's name signs in without a password.
 */
export class AuthProxySignIn {
  private readonly trusted: (address: string | undefined) => boolean;
  private readonly loggedPeers = new Set<string>();
  /** Set once an account exists; none is ever deleted back to zero (the last admin stays). */
  private setUp = false;

  constructor(private readonly deps: AuthProxyDeps) {
    this.trusted = trustedPeers(deps.trustProxy);
  }

  /**
   * Where sign-out sends the browser: for a session the proxy signs in (its header came from a
   * trusted proxy with the sign-out), HERALD_AUTH_PROXY_LOGOUT_URL, since Herald's own sign-out
   * alone would be undone by the next request through the proxy; else null.
   */
  logoutRedirect(peer: string | undefined, headers: IncomingHttpHeaders): string | null {
    const fromProxy =
      this.trusted(peer) && headerText(headers[this.deps.config.header]).trim() !== '';
    return fromProxy ? this.deps.config.logoutUrl : null;
  }

  /**
   * The person the header names, signed in; null when the request has no header, or has it
   * from an address that is not a trusted proxy (ignored: the cookie decides, as without a
   * proxy). Throws 403 for a name Herald refuses.
   */
  async signIn(req: ProxyRequest): Promise<ProxySignedIn | null> {
    const { config } = this.deps;
    const name = headerText(req.headers[config.header]).trim();
    if (name === '') return null;
    if (!this.trusted(req.peer)) {
      this.noteUntrusted(req.peer);
      return null;
    }
    // Before the first administrator exists the header signs no one in: a person the proxy
    // named would become a viewer, and nobody could then administer Herald. The setup page
    // (its one-time code, or HERALD_ADMIN_USER) makes the first one.
    if (!this.setUp) {
      if (await this.deps.auth.setupRequired()) return null;
      this.setUp = true;
    }
    checkUsername(name, config.names.header);
    const role = config.groupsHeader
      ? roleForGroups(
          await this.deps.groupRoles(),
          proxyGroups(headerText(req.headers[config.groupsHeader])),
        )
      : null;
    const current = await this.deps.auth.userForSession(req.cookieToken);
    if (current && current.username === name && req.cookieToken) {
      const roleChanged = await this.followGroups(current, role, req);
      return {
        user: proxyView({ ...current, role: role ?? current.role }),
        token: req.cookieToken,
        opened: false,
        ended: null,
        roleChanged,
      };
    }
    const { user, created } = await this.account(name, role, req);
    const roleChanged = created ? false : await this.followGroups(user, role, req);
    let ended: string | null = null;
    if (req.cookieToken) {
      // The browser's session was someone else's (or is gone): the header now speaks for it.
      await this.deps.auth.endSession(req.cookieToken);
      ended = sessionKey(req.cookieToken);
    }
    // Marked as the proxy's: requireTwoFactor then holds it to nothing on later requests either.
    const token = await this.deps.auth.createSession(user.id, req.origin, {
      method: PROXY_PROVIDER,
    });
    const signedIn = proxyView({ ...user, role: role ?? user.role });
    await this.record(req, signedIn, {
      action: 'auth.sign-in',
      targetType: 'user',
      targetId: signedIn.id,
      targetName: signedIn.username,
      changes: [{ field: 'provider', before: null, after: PROXY_PROVIDER }],
    });
    return { user: signedIn, token, opened: true, ended, roleChanged };
  }

  /** The account with this name, made when auto-create allows it. */
  private async account(
    name: string,
    role: UserRole | null,
    req: ProxyRequest,
  ): Promise<{ user: SessionUser; created: boolean }> {
    const found = await User.findOne({ where: { username: name } });
    if (found) {
      if (found.disabled) throw refused('this account is disabled; ask an administrator');
      return { user: accountView(found), created: false };
    }
    if (!this.deps.config.autoCreate) {
      throw refused(
        `Herald has no account named "${name}", and accounts are not made at sign-in (HERALD_AUTH_PROXY_AUTO_CREATE is off); ask an administrator to create it`,
      );
    }
    const made = await this.deps.writeLock.run(async ({ transaction }) => {
      // Looked up again inside the write: the console's first requests arrive together.
      const again = await User.findOne({ where: { username: name }, transaction });
      if (again) return { row: again, created: false };
      const row = await User.create(
        { username: name, passwordHash: '', role: role ?? 'viewer' },
        { transaction },
      );
      return { row, created: true };
    });
    if (made.row.disabled) throw refused('this account is disabled; ask an administrator');
    const user = accountView(made.row);
    if (made.created) {
      await this.record(req, user, {
        action: 'user.create',
        targetType: 'user',
        targetId: user.id,
        targetName: user.username,
        changes: [
          { field: 'role', before: null, after: user.role },
          { field: 'provider', before: null, after: PROXY_PROVIDER },
        ],
      });
    }
    return { user, created: made.created };
  }

  /** When a mapped group names another role, the account takes it; true if it changed. */
  private async followGroups(
    user: SessionUser,
    role: UserRole | null,
    req: ProxyRequest,
  ): Promise<boolean> {
    if (role === null || role === user.role) return false;
    await this.deps.writeLock.run(() => User.update({ role }, { where: { id: user.id } }));
    await this.record(req, user, {
      action: 'user.update',
      targetType: 'user',
      targetId: user.id,
      targetName: user.username,
      changes: [{ field: 'role', before: user.role, after: role }],
    });
    return true;
  }

  private async record(
    req: ProxyRequest,
    user: SessionUser,
    entry: Omit<AuditRecord, 'who'>,
  ): Promise<void> {
    try {
      await this.deps.audit.record({
        ...entry,
        who: {
          userId: user.id,
          username: user.username,
          ip: req.origin.ip,
          userAgent: req.origin.userAgent,
        },
      });
    } catch (err) {
      // The sign-in stands, as a password sign-in's does when its entry fails.
      log.error(`${entry.action}: not recorded: ${errorMessage(err)}`);
    }
  }

  /** Once per address: a client trying the header on every request must not flood the log. */
  private noteUntrusted(peer: string | undefined): void {
    const address = peer ?? 'unknown';
    if (this.loggedPeers.has(address) || this.loggedPeers.size > MAX_LOGGED_PEERS) return;
    this.loggedPeers.add(address);
    if (this.loggedPeers.size > MAX_LOGGED_PEERS) {
      log.warn(
        `${this.deps.config.names.header} came from more than ${MAX_LOGGED_PEERS} addresses that are not trusted proxies; no more are logged until Herald restarts`,
      );
      return;
    }
    log.warn(
      `${this.deps.config.names.header} ignored from ${address}: not a trusted proxy (HERALD_TRUST_PROXY); further requests from it are not logged`,
    );
  }
}

/** Refuses names Herald could not show or match safely. */
function checkUsername(name: string, header: string): void {
  if ([...name].length > PROXY_USERNAME_MAX) {
    throw refused(
      `${header}: the proxy's username is longer than ${PROXY_USERNAME_MAX} characters; Herald refuses it rather than cut it`,
    );
  }
  if (/[\p{Cc}\s]/u.test(name)) {
    throw refused(
      `${header}: the proxy's username holds spaces or control characters; Herald refuses it`,
    );
  }
}

function accountView(row: User): SessionUser {
  return proxyView({
    id: row.id,
    username: row.username,
    role: row.role,
    twoFactor: row.totpSecret !== null ? 'on' : 'off',
  });
}

/**
 * The second factor is the proxy's job for the people it signs in: Herald's requireTwoFactor
 * holds password sign-ins only (issue 44), so `required` never stops a proxy's session.
 */
function proxyView(user: SessionUser): SessionUser {
  return { ...user, twoFactor: user.twoFactor === 'on' ? 'on' : 'off' };
}
