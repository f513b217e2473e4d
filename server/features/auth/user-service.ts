import { createHash, randomBytes } from 'node:crypto';

import { Op, UniqueConstraintError, type Transaction } from 'sequelize';

import type {
  UserAccount,
  UserRole,
  createUserBody,
  updateUserBody,
} from '../../../contract/console/users';
import { Session, User } from '../../db/models';
import { AppError, conflict, notFound } from '../../lib/errors';
import type { HeraldParts } from '../../parts';
import { publicBaseUrl } from '../hosted/share-links';
import { sessionUserOf, type SessionUser } from './auth-service';
import { CAN_SIGN_IN } from './can-sign-in';
import { hashPassword } from './password-hash';
import { TWO_FACTOR_OFF } from './two-factor-service';

type CreateUser = (typeof createUserBody)['_output'];
type UpdateUser = (typeof updateUserBody)['_output'];

/** How long an invite link works. */
export const INVITE_TTL_MS = 24 * 60 * 60 * 1000;

/** What an account keeps of its invite link's token (herald admin's reset links too). */
export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

const accountOf = (user: User): UserAccount => ({
  id: user.id,
  username: user.username,
  role: user.role,
  disabled: user.disabled,
  invited: user.inviteHash !== null,
  inviteExpiresAt: user.inviteExpiresAt?.toISOString() ?? null,
  twoFactor: user.totpSecret !== null,
  createdAt: user.createdAt.toISOString(),
});

/** What a change to an account means for the sessions it has open. */
export interface AccountChange {
  account: UserAccount;
  /** The account's sessions were signed out (password set, disabled); its streams must end. */
  signedOut: boolean;
  /** Its role changed: open streams were authorised under the old one. */
  roleChanged: boolean;
}

export type UserServiceDeps = Pick<HeraldParts, 'writeLock' | 'clock' | 'settings' | 'listenUrl'>;

/** The team's accounts, as administrators manage them (docs/running-for-a-team.md "Users"). */
export class UserService {
  constructor(private readonly deps: UserServiceDeps) {}

  async list(): Promise<UserAccount[]> {
    const users = await User.findAll({ order: [['id', 'ASC']] });
    return users.map(accountOf);
  }

  async create(body: CreateUser): Promise<UserAccount & { inviteUrl: string | null }> {
    const passwordHash = body.password ? await hashPassword(body.password) : '';
    const token = body.password ? null : randomBytes(32).toString('base64url');
    const user = await this.deps.writeLock.run(() =>
      uniqueName(() =>
        User.create({
          username: body.username,
          role: body.role,
          passwordHash,
          ...(token ? this.inviteFields(token) : {}),
        }),
      ),
    );
    return { ...accountOf(user), inviteUrl: token ? this.inviteUrl(token) : null };
  }

  async update(id: number, body: UpdateUser): Promise<AccountChange> {
    const passwordHash = body.password ? await hashPassword(body.password) : undefined;
    return this.deps.writeLock.run(async ({ transaction }) => {
      const user = await this.find(id, transaction);
      const demoted = body.role !== undefined && body.role !== 'admin';
      if (user.role === 'admin' && !user.disabled && (demoted || body.disabled === true)) {
        await refuseLastAdmin(user.id, transaction, demoted ? 'demoted' : 'disabled');
      }
      const roleChanged = body.role !== undefined && body.role !== user.role;
      const signedOut =
        passwordHash !== undefined ||
        (body.disabled === true && !user.disabled) ||
        body.resetTwoFactor === true;
      await uniqueName(() =>
        user.update(
          {
            ...(body.username !== undefined ? { username: body.username } : {}),
            ...(body.role !== undefined ? { role: body.role } : {}),
            ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
            // A password set by an administrator ends a pending invite: the link would reset it.
            ...(passwordHash ? { passwordHash, inviteHash: null, inviteExpiresAt: null } : {}),
            // A lost phone: the person signs in with the password alone and sets it up again.
            ...(body.resetTwoFactor ? TWO_FACTOR_OFF : {}),
          },
          { transaction },
        ),
      );
      if (signedOut) await Session.destroy({ where: { userId: id }, transaction });
      return { account: accountOf(user), signedOut, roleChanged };
    });
  }

  async remove(id: number): Promise<void> {
    await this.deps.writeLock.run(async ({ transaction }) => {
      const user = await this.find(id, transaction);
      if (user.role === 'admin' && !user.disabled) {
        await refuseLastAdmin(user.id, transaction, 'deleted');
      }
      await Session.destroy({ where: { userId: id }, transaction });
      await user.destroy({ transaction });
    });
  }

  /** A new invite link for an account that has not set its password yet. */
  async reissueInvite(id: number): Promise<{ inviteUrl: string; inviteExpiresAt: string }> {
    const token = randomBytes(32).toString('base64url');
    const fields = this.inviteFields(token);
    await this.deps.writeLock.run(async ({ transaction }) => {
      const user = await this.find(id, transaction);
      if (user.passwordHash !== '') {
        throw conflict('this account has a password; set a new one instead of inviting');
      }
      await user.update(fields, { transaction });
    });
    return {
      inviteUrl: this.inviteUrl(token),
      inviteExpiresAt: fields.inviteExpiresAt.toISOString(),
    };
  }

  /** Whose invite link this is; 404 once used or expired, as for an unknown one. */
  async invitee(token: string, transaction?: Transaction): Promise<User> {
    const user = await User.findOne({ where: { inviteHash: hashOf(token) }, transaction });
    if (!user || !user.inviteExpiresAt || user.inviteExpiresAt.getTime() < this.deps.clock.now()) {
      throw notFound('this invite link is unknown, was used, or has expired; ask for a new one');
    }
    return user;
  }

  /** Sets the invited person's password and ends the link. */
  async acceptInvite(token: string, password: string): Promise<SessionUser> {
    const hash = await hashPassword(password);
    return this.deps.writeLock.run(async ({ transaction }) => {
      const user = await this.invitee(token, transaction);
      if (user.disabled) throw new AppError(403, 'this account is disabled; ask an administrator');
      // An account that had a password is being reset (`herald admin reset-password`): whoever
      // signed in with the old one, perhaps the one who learned it, is signed out everywhere.
      if (user.passwordHash) await Session.destroy({ where: { userId: user.id }, transaction });
      await user.update(
        { passwordHash: hash, inviteHash: null, inviteExpiresAt: null },
        { transaction },
      );
      return sessionUserOf(user, this.deps.settings.get().requireTwoFactor);
    });
  }

  private async find(id: number, transaction: Transaction): Promise<User> {
    const user = await User.findByPk(id, { transaction });
    if (!user) throw notFound(`user ${id} not found`);
    return user;
  }

  private inviteFields(token: string) {
    return {
      inviteHash: hashOf(token),
      inviteExpiresAt: new Date(this.deps.clock.now() + INVITE_TTL_MS),
    };
  }

  private inviteUrl(token: string): string {
    return `${publicBaseUrl(this.deps)}/invite?token=${token}`;
  }
}

/**
 * Refuses when no other administrator anyone can sign in as would be left: a disabled one, or
 * one invited who never accepted (whose invite may expire), would leave no one to administer.
 */
async function refuseLastAdmin(id: number, transaction: Transaction, what: string) {
  const others = await User.count({
    where: { ...CAN_SIGN_IN, role: 'admin' satisfies UserRole, id: { [Op.ne]: id } },
    transaction,
  });
  if (others === 0) {
    throw conflict(`the last administrator cannot be ${what}; make another account admin first`);
  }
}

async function uniqueName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw conflict('username: is taken');
    throw err;
  }
}
