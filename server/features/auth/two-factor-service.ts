import { createHash, randomBytes } from 'node:crypto';

import { Op, type Transaction } from 'sequelize';

import { RECOVERY_CODE_COUNT, type TwoFactorStatus } from '../../../contract/console/two-factor';
import { base32Encode, matchTotp, newTotpSecret, otpauthUrl } from '../../crypto/totp';
import { User } from '../../db/models';
import { AppError, conflict, notFound } from '../../lib/errors';
import type { HeraldParts } from '../../parts';

/** The issuer an authenticator app lists the account under. */
const ISSUER = 'Herald';

/** The columns that make two-factor off: for turning it off, and for an administrator's reset. */
export const TWO_FACTOR_OFF = {
  totpSecret: null,
  totpPending: null,
  totpLastStep: null,
  recoveryCodes: null,
} as const;

/** Spaces, dashes and case do not matter in a recovery code as typed. */
const normalRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

/**
 * Recovery codes carry 60 random bits each, far past guessing, so a fast hash is enough (and
 * lets a code be found by its hash); only the hashes are kept.
 */
const hashRecoveryCode = (code: string) =>
  createHash('sha256').update(normalRecoveryCode(code)).digest('hex');

/** A new set of recovery codes: `xxxx-xxxx-xxxx`, lowercase base32. */
function newRecoveryCodes(): { codes: string[]; stored: string } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = base32Encode(randomBytes(8)).slice(0, 12).toLowerCase();
    return `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8)}`;
  });
  return { codes, stored: JSON.stringify(codes.map(hashRecoveryCode)) };
}

const storedHashes = (stored: string | null): string[] =>
  stored ? (JSON.parse(stored) as string[]) : [];

export const wrongCode = (field = 'code') =>
  new AppError(
    400,
    `${field}: is not correct; use the current code from your authenticator app, or an unused recovery code`,
  );

export type TwoFactorDeps = Pick<HeraldParts, 'writeLock' | 'clock' | 'secrets' | 'settings'>;

/**
 * A person's second factor (docs/security.md "Two-factor sign-in"): setting it up, the codes
 * checked at sign-in, recovery codes. Each code works once: a TOTP step once accepted is not
 * accepted again, a recovery code is used up; both are taken with a conditional UPDATE, so two
 * requests (or two processes) racing with one code cannot both win.
 */
export class TwoFactorService {
  constructor(private readonly deps: TwoFactorDeps) {}

  /** Whether the administrator requires two-factor for every account. */
  required(): boolean {
    return this.deps.settings.get().requireTwoFactor;
  }

  async status(userId: number): Promise<TwoFactorStatus> {
    const user = await this.find(userId);
    return {
      enabled: user.totpSecret !== null,
      required: this.required(),
      recoveryCodesLeft: storedHashes(user.recoveryCodes).length,
      pending: user.totpPending !== null,
    };
  }

  /** A fresh secret, held (sealed) until `enable` confirms a code from it; replaces any earlier one. */
  async setup(userId: number): Promise<{ secret: string; otpauthUrl: string }> {
    const secret = newTotpSecret();
    const user = await this.deps.writeLock.run(async ({ transaction }) => {
      const user = await this.find(userId, transaction);
      if (user.totpSecret !== null) throw alreadyOn();
      await user.update({ totpPending: this.deps.secrets.seal(secret) }, { transaction });
      return user;
    });
    return { secret, otpauthUrl: otpauthUrl(ISSUER, user.username, secret) };
  }

  /** Turns two-factor on with a code of the pending secret; answers the recovery codes. */
  async enable(userId: number, code: string): Promise<string[]> {
    const recovery = newRecoveryCodes();
    await this.deps.writeLock.run(async ({ transaction }) => {
      const user = await this.find(userId, transaction);
      if (user.totpSecret !== null) throw alreadyOn();
      if (user.totpPending === null) {
        throw conflict('two-factor: nothing is set up; start the setup first');
      }
      const secret = this.deps.secrets.open(user.totpPending);
      const step = matchTotp(secret, code.replace(/\s/g, ''), this.deps.clock.now(), null);
      if (step === null) throw wrongCode();
      await user.update(
        {
          totpSecret: user.totpPending,
          totpPending: null,
          totpLastStep: step,
          recoveryCodes: recovery.stored,
        },
        { transaction },
      );
    });
    return recovery.codes;
  }

  /** Turns two-factor off (the caller checked the password); refused while it is required. */
  async disable(userId: number): Promise<void> {
    if (this.required()) throw requiredByAdmin();
    await this.deps.writeLock.run(() => User.update(TWO_FACTOR_OFF, { where: { id: userId } }));
  }

  /** A new set of recovery codes for an account with two-factor on; the old set stops. */
  async regenerateRecoveryCodes(userId: number): Promise<string[]> {
    const recovery = newRecoveryCodes();
    const [changed] = await this.deps.writeLock.run(() =>
      User.update(
        { recoveryCodes: recovery.stored },
        { where: { id: userId, totpSecret: { [Op.ne]: null } } },
      ),
    );
    if (changed === 0) throw conflict('two-factor: it is off; turn it on first');
    return recovery.codes;
  }

  /**
   * Whether `code` is this account's second factor now: a 6-digit code of a step not used yet,
   * or an unused recovery code. A code that matches is used up.
   */
  async verify(userId: number, code: string): Promise<boolean> {
    const user = await User.findByPk(userId);
    if (!user || user.totpSecret === null) return false;
    const digits = code.replace(/\s/g, '');
    if (/^\d{6}$/.test(digits)) {
      const secret = this.deps.secrets.open(user.totpSecret);
      const step = matchTotp(secret, digits, this.deps.clock.now(), user.totpLastStep);
      if (step === null) return false;
      const [taken] = await this.deps.writeLock.run(() =>
        User.update(
          { totpLastStep: step },
          {
            where: {
              id: userId,
              [Op.or]: [{ totpLastStep: null }, { totpLastStep: { [Op.lt]: step } }],
            },
          },
        ),
      );
      return taken === 1;
    }
    const hash = hashRecoveryCode(code);
    const hashes = storedHashes(user.recoveryCodes);
    if (!hashes.includes(hash)) return false;
    const [taken] = await this.deps.writeLock.run(() =>
      User.update(
        { recoveryCodes: JSON.stringify(hashes.filter((h) => h !== hash)) },
        { where: { id: userId, recoveryCodes: user.recoveryCodes } },
      ),
    );
    return taken === 1;
  }

  private async find(id: number, transaction?: Transaction): Promise<User> {
    const user = await User.findByPk(id, { transaction });
    if (!user) throw notFound(`user ${id} not found`);
    return user;
  }
}

const alreadyOn = () =>
  conflict('two-factor: it is already on; turn it off first to set it up again');

export const requiredByAdmin = () =>
  new AppError(403, 'two-factor: your administrator requires it, so it cannot be turned off');
