import { createHash, randomBytes } from 'node:crypto';

import argon2 from 'argon2';
import { Op } from 'sequelize';

import { Session, User } from '../../db/models';
import { AppError, conflict, unauthorized } from '../../lib/errors';
import type { HeraldParts } from '../../parts';

export const SESSION_COOKIE = 'herald_session';
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

const hashSessionToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A session's stored id: the hash of its cookie token, safe to keep in memory and logs. */
export const sessionKey = hashSessionToken;

export interface SessionUser {
  id: number;
  username: string;
}

/** What AuthService uses of the composed parts. */
export type AuthServiceDeps = Pick<HeraldParts, 'writeLock' | 'clock'>;

export class AuthService {
  constructor(private readonly deps: AuthServiceDeps) {}

  async setupRequired(): Promise<boolean> {
    return (await User.count()) === 0;
  }

  /** Creates the first administrator; refused once any user exists. */
  async setup(username: string, password: string): Promise<SessionUser> {
    const hash = await argon2.hash(password, { type: argon2.argon2id });
    const user = await this.deps.writeLock.run(async ({ transaction }) => {
      // Counted inside the write: a setup committed in the same cycle is seen.
      if ((await User.count({ transaction })) > 0)
        throw conflict('Herald is already set up; sign in instead');
      return User.create({ username, passwordHash: hash });
    });
    return { id: user.id, username: user.username };
  }

  async verify(username: string, password: string): Promise<SessionUser | null> {
    const user = await User.findOne({ where: { username } });
    if (!user) {
      // Same work either way, so timing does not tell which usernames exist.
      await argon2.hash(password, { type: argon2.argon2id }).catch(() => undefined);
      return null;
    }
    const ok = await argon2.verify(user.passwordHash, password).catch(() => false);
    return ok ? { id: user.id, username: user.username } : null;
  }

  async createSession(userId: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.deps.writeLock.run(async () => {
      await Session.destroy({ where: { expiresAt: { [Op.lt]: new Date(this.deps.clock.now()) } } });
      await Session.create({
        id: hashSessionToken(token),
        userId,
        expiresAt: new Date(this.deps.clock.now() + SESSION_TTL_MS),
      });
    });
    return token;
  }

  async userForSession(token: string | undefined): Promise<SessionUser | null> {
    if (!token) return null;
    const session = await Session.findByPk(hashSessionToken(token));
    if (!session || session.expiresAt.getTime() < this.deps.clock.now()) return null;
    const user = await User.findByPk(session.userId);
    return user ? { id: user.id, username: user.username } : null;
  }

  async endSession(token: string | undefined): Promise<void> {
    if (!token) return;
    await this.deps.writeLock.run(() =>
      Session.destroy({ where: { id: hashSessionToken(token) } }),
    );
  }

  /** Changes the password and signs out every other session of the user. */
  async changePassword(
    user: SessionUser,
    current: string,
    next: string,
    keepToken: string | undefined,
  ) {
    const ok = await this.verify(user.username, current);
    if (!ok) throw new AppError(400, 'currentPassword: is not correct');
    const hash = await argon2.hash(next, { type: argon2.argon2id });
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

  /** The first administrator, for the desktop window's one-time sign-in. */
  async firstUser(): Promise<SessionUser | null> {
    const user = await User.findOne({ order: [['id', 'ASC']] });
    return user ? { id: user.id, username: user.username } : null;
  }

  /** Creates the first admin from HERALD_ADMIN_USER / HERALD_ADMIN_PASSWORD when none exists. */
  async ensureAdminFromEnv(
    username: string | undefined,
    password: string | undefined,
  ): Promise<boolean> {
    if (!username || !password) return false;
    if (!(await this.setupRequired())) return false;
    if (password.length < 8) throw new Error('HERALD_ADMIN_PASSWORD must be at least 8 characters');
    await this.setup(username, password);
    return true;
  }
}

export function requireUser(user: SessionUser | null): SessionUser {
  if (!user) throw unauthorized('not signed in');
  return user;
}
