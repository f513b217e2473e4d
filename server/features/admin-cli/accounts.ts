import { randomBytes } from 'node:crypto';

import type { UserRole } from '../../../contract/console/users';
import type { Database } from '../../db/database';
import { User } from '../../db/models';
import type { Clock } from '../../lib/clock';
import { CLI_ACTOR, AuditLog } from '../audit/audit-log';
import { hashOf as inviteTokenHash } from '../auth/user-service';
import { AdminRefused } from './admin-refused';

/** How long a reset link works: long enough to open it, short enough to matter little if seen. */
export const RESET_LINK_TTL_MS = 30 * 60_000;

/** An account as `herald admin list` shows it (and prints it with --json). */
export interface AdminAccount {
  id: number;
  username: string;
  role: UserRole;
  disabled: boolean;
  /** False while an invited person has not chosen a password yet. */
  passwordSet: boolean;
  /** Until when an invite or reset link works, while one is pending (it may have expired). */
  signInLinkExpiresAt: string | null;
  twoFactor: boolean;
  createdAt: string;
}

const accountOf = (user: User): AdminAccount => ({
  id: user.id,
  username: user.username,
  role: user.role,
  disabled: user.disabled,
  passwordSet: user.passwordHash !== '',
  signInLinkExpiresAt:
    user.inviteHash !== null ? (user.inviteExpiresAt?.toISOString() ?? null) : null,
  twoFactor: user.totpSecret !== null,
  createdAt: user.createdAt.toISOString(),
});

export interface ResetLink {
  account: AdminAccount;
  /** The token to put in the link: shown once, only its hash is stored. */
  token: string;
  expiresAt: Date;
}

/** The accounts and what the command line did with them, recorded in the audit log as `cli`. */
export class AdminAccounts {
  private readonly audit: AuditLog;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.audit = new AuditLog({ sequelize: db.sequelize, writeLock: db.writer, clock });
  }

  private async all(): Promise<User[]> {
    return User.findAll({ order: [['id', 'ASC']] });
  }

  /** Every account, oldest first; the listing is recorded (who looked at the accounts from a shell). */
  async list(): Promise<AdminAccount[]> {
    const users = await this.all();
    await this.audit.record({
      who: CLI_ACTOR,
      action: 'user.list',
      targetType: 'user',
    });
    return users.map(accountOf);
  }

  /**
   * Gives the account a one-time link to choose a new password, through the invite mechanism
   * (the console's /invite page, UserService.acceptInvite): the link's hash and expiry are
   * stored on the account as an invite's are, and the person's current password keeps working
   * until the link is used, so a reset run on the wrong account locks nobody out. A link it had
   * before stops working. The entry in the audit log is written before the link is shown; if it
   * cannot be, the link is taken back.
   */
  async resetLink(username: string): Promise<ResetLink> {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(this.clock.now() + RESET_LINK_TTL_MS);
    const user = await this.db.writer.run(async ({ transaction }) => {
      const found = await User.findOne({ where: { username }, transaction });
      if (!found) throw await this.unknown(username);
      if (found.disabled) {
        throw new AdminRefused(
          `the account ${username} is disabled: a sign-in link does not work for it. ` +
            'An administrator enables it in Users (or reset the password of an administrator ' +
            'who is not disabled: herald admin list shows them)',
        );
      }
      await found.update(
        { inviteHash: inviteTokenHash(token), inviteExpiresAt: expiresAt },
        { transaction },
      );
      return found;
    });
    try {
      await this.audit.record({
        who: CLI_ACTOR,
        action: 'user.reset-password',
        targetType: 'user',
        targetId: user.id,
        targetName: user.username,
        changes: [{ field: 'linkExpiresAt', before: null, after: expiresAt.toISOString() }],
      });
    } catch (err) {
      await this.takeBack(user.id, token);
      throw new AdminRefused(
        `the audit log could not record the reset (${(err as Error).message}), so no link was made`,
      );
    }
    return { account: accountOf(user), token, expiresAt };
  }

  private async unknown(username: string): Promise<AdminRefused> {
    const names = (await this.all()).map((u) => u.username);
    return new AdminRefused(
      names.length === 0
        ? 'Herald has no accounts yet: start it and create the first administrator with the ' +
            'one-time setup code it prints (or start it with HERALD_ADMIN_USER and HERALD_ADMIN_PASSWORD set)'
        : `there is no account named "${username}"; the accounts are: ${names.join(', ')}`,
    );
  }

  /** Ends this link, unless the account has been given another one since. */
  private async takeBack(id: number, token: string): Promise<void> {
    await this.db.writer.run(({ transaction }) =>
      User.update(
        { inviteHash: null, inviteExpiresAt: null },
        { where: { id, inviteHash: inviteTokenHash(token) }, transaction },
      ),
    );
  }
}
