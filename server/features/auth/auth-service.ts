import { createHash, randomBytes } from 'node:crypto';

import { Op } from 'sequelize';

import type { TwoFactorState } from '../../../contract/console/two-factor';
import { newPasswordSchema, type UserRole } from '../../../contract/console/users';
import { Session, User } from '../../db/models';
import { AppError, conflict, unauthorized } from '../../lib/errors';
import type { HeraldParts } from '../../parts';

import { hashPassword, isWeakerThanAccountCost, verifyPassword } from './password-hash';

export const SESSION_COOKIE = 'herald_session';
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** How stale a session's "last seen" may get before a request writes it again. */
const LAST_SEEN_EVERY_MS = 5 * 60_000;

const hashSessionToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A session's stored id: the hash of its cookie token, safe to keep in memory and logs. */
export const sessionKey = hashSessionToken;

export interface SessionUser {
  id: number;
  username: string;
  role: UserRole;
  twoFactor: TwoFactorState;
}

/** A session opened other than with a password: `oidc` (with the provider's ID token). */
export interface SessionVia {
  method: string;
  idToken?: string | null;
}

/** Where a session was opened, as the person's list of sessions shows it. */
export interface SessionOrigin {
  ip: string | null;
  userAgent: string | null;
}

/** `required` when the administrator requires a second factor and the account has none. */
export const twoFactorStateOf = (user: User, required: boolean): TwoFactorState =>
  user.totpSecret !== null ? 'on' : required ? 'required' : 'off';

export const sessionUserOf = (user: User, requireTwoFactor: boolean): SessionUser => ({
  id: user.id,
  username: user.username,
  role: user.role,
  twoFactor: twoFactorStateOf(user, requireTwoFactor),
});

/** What AuthService uses of the composed parts. */
export type AuthServiceDeps = Pick<HeraldParts, 'writeLock' | 'clock' | 'settings'>;

/** Signing in and out: passwords, sessions, the first administrator. */
export class AuthService {
  constructor(private readonly deps: AuthServiceDeps) {}

  private sessionUser(user: User): SessionUser {
    return sessionUserOf(user, this.deps.settings.get().requireTwoFactor);
  }

  async setupRequired(): Promise<boolean> {
    return (await User.count()) === 0;
  }

  /** Creates the first administrator; refused once any user exists. */
  async setup(username: string, password: string): Promise<SessionUser> {
    const hash = await hashPassword(password);
    const user = await this.deps.writeLock.run(async ({ transaction }) => {
      // Counted inside the write: a setup committed in the same cycle is seen.
      if ((await User.count({ transaction })) > 0)
        throw conflict('Herald is already set up; sign in instead');
      return User.create({ username, passwordHash: hash, role: 'admin' });
    });
    return this.sessionUser(user);
  }

  /**
   * The account whose password this is, or null. A disabled account with the right password
   * is told so (403) rather than "wrong password", which would send its owner guessing.
   */
  async verify(username: string, password: string): Promise<SessionUser | null> {
    const user = await User.findOne({ where: { username } });
    if (!user || user.passwordHash === '') {
      // Same work either way, so timing does not tell which usernames exist.
      await hashPassword(password).catch(() => undefined);
      return null;
    }
    if (!(await verifyPassword(user.passwordHash, password))) return null;
    if (user.disabled) throw new AppError(403, 'this account is disabled; ask an administrator');
    if (isWeakerThanAccountCost(user.passwordHash)) await this.rehash(user, password);
    return this.sessionUser(user);
  }

  /** Stores the password at today's cost; compared with the hash read, so a change made
   * meanwhile (a new password, a reset) is not overwritten. */
  private async rehash(user: User, password: string): Promise<void> {
    const stronger = await hashPassword(password);
    await this.deps.writeLock.run(() =>
      User.update(
        { passwordHash: stronger },
        { where: { id: user.id, passwordHash: user.passwordHash } },
      ),
    );
  }

  async createSession(
    userId: number,
    origin: SessionOrigin,
    /** How the person signed in, when not with a password (features/sso/). */
    via?: SessionVia,
  ): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = new Date(this.deps.clock.now());
    await this.deps.writeLock.run(async () => {
      await Session.destroy({ where: { expiresAt: { [Op.lt]: now } } });
      await Session.create({
        id: hashSessionToken(token),
        userId,
        expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
        ip: origin.ip?.slice(0, 64) ?? null,
        userAgent: origin.userAgent?.slice(0, 300) ?? null,
        lastSeenAt: now,
        signInMethod: via?.method ?? null,
        idToken: via?.idToken ?? null,
      });
    });
    return token;
  }

  /** The person a session cookie belongs to; null when it is unknown, expired or disabled. */
  async userForSession(token: string | undefined): Promise<SessionUser | null> {
    if (!token) return null;
    const session = await Session.findByPk(hashSessionToken(token));
    const now = this.deps.clock.now();
    if (!session || session.expiresAt.getTime() < now) return null;
    const user = await User.findByPk(session.userId);
    if (!user || user.disabled) return null;
    if (now - (session.lastSeenAt?.getTime() ?? 0) > LAST_SEEN_EVERY_MS) {
      await this.deps.writeLock.run(() =>
        Session.update({ lastSeenAt: new Date(now) }, { where: { id: session.id } }),
      );
    }
    // requireTwoFactor is for password sign-ins: a provider's session is its own second factor
    // (docs/security.md "Two-factor sign-in").
    if (session.signInMethod) return sessionUserOf(user, false);
    return this.sessionUser(user);
  }

  /** Ends the session; answers how it was opened (sign-out also ends a provider's session). */
  async endSession(token: string | undefined): Promise<SessionVia | null> {
    if (!token) return null;
    return this.deps.writeLock.run(async ({ transaction }) => {
      const id = hashSessionToken(token);
      const session = await Session.findByPk(id, { transaction });
      await Session.destroy({ where: { id } });
      return session?.signInMethod
        ? { method: session.signInMethod, idToken: session.idToken ?? null }
        : null;
    });
  }

  /** Changes the password and signs out every other session of the user. */
  async changePassword(
    user: SessionUser,
    current: string,
    next: string,
    keepToken: string | undefined,
    /** The body field the current password came in, for the 400 (`current`, `currentPassword`). */
    currentField = 'current',
  ) {
    const ok = await this.verify(user.username, current);
    if (!ok) throw new AppError(400, `${currentField}: is not correct`);
    const hash = await hashPassword(next);
    await this.deps.writeLock.run(async () => {
      await User.update({ passwordHash: hash }, { where: { id: user.id } });
      await Session.destroy({
        where: {
          userId: user.id,
          ...(keepToken ? { id: { [Op.ne]: hashSessionToken(keepToken) } } : {}),
        },
      });
    });
  }

  /** The first enabled administrator, for the desktop window's one-time sign-in. */
  async firstUser(): Promise<SessionUser | null> {
    const user = await User.findOne({
      where: { role: 'admin', disabled: false, passwordHash: { [Op.ne]: '' } },
      order: [['id', 'ASC']],
    });
    return user ? this.sessionUser(user) : null;
  }

  /** Creates the first admin from HERALD_ADMIN_USER / HERALD_ADMIN_PASSWORD when none exists. */
  async ensureAdminFromEnv(
    username: string | undefined,
    password: string | undefined,
  ): Promise<boolean> {
    if (!username || !password) return false;
    if (!(await this.setupRequired())) return false;
    // The rule every password set in the console follows.
    const checked = newPasswordSchema.safeParse(password);
    if (!checked.success) {
      throw new Error(
        `HERALD_ADMIN_PASSWORD ${checked.error.issues[0]?.message ?? 'is not allowed'}`,
      );
    }
    await this.setup(username, password);
    return true;
  }
}

export function requireUser(user: SessionUser | null): SessionUser {
  if (!user) throw unauthorized('not signed in');
  return user;
}
