import { Op, UniqueConstraintError, type Transaction } from 'sequelize';

import type { UserRole } from '../../../contract/console/users';
import { User } from '../../db/models/user';
import type { WriteLock } from '../../db/writer';
import { sessionUserOf, type SessionUser } from '../auth/auth-service';
import { roleForGroups, type GroupRoles } from './group-roles';

/**
 * Which Herald account a provider's person is (issue 44, docs/running-for-a-team.md "OpenID
 * Connect"). An account is found by the issuer + subject bound to it, never by name: the
 * username claim only names an account being created, so a provider that hands out or reuses
 * a username cannot reach someone else's account.
 *
 * With auto-create off, the one account a first sign-in may bind to is one an administrator
 * invited and that has not been taken up: same username, never bound, no password set, not
 * disabled, its invite still pending. Such an account has never been used by anyone, so binding
 * takes nothing over; an account with a password (everyone who signs in with one, the
 * break-glass administrator) is never bound by name. The invite link stops working once bound.
 */

/** The codes the sign-in page explains (docs/console-api.md "Signing in with OpenID Connect"). */
export type SsoRefusal = 'sso-no-account' | 'sso-disabled-account';

export interface SsoPerson {
  issuer: string;
  subject: string;
  /** The username claim's value, cleaned up to be a username; only names a new account. */
  username: string;
  /** The groups claim's values, or null when the provider sent no such claim. */
  groups: string[] | null;
}

export type SsoOutcome =
  | {
      user: SessionUser;
      /** How the account came to be signed in to: created now, bound now, or already bound. */
      how: 'created' | 'bound' | 'known';
      /** The role before the groups claim changed it, when it did. */
      roleBefore: UserRole | null;
    }
  | { refused: SsoRefusal; username: string };

/** Longest username the accounts take (contract/console/users.ts). */
const USERNAME_MAX = 100;

/**
 * A username from a claim's value: spaces and control characters (which usernames may not hold)
 * become '-', and it is cut to leave room for a `-N` suffix.
 */
export function usernameFromClaim(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const name = value
    .trim()
    .replace(/[\p{Cc}\s]+/gu, '-')
    .slice(0, USERNAME_MAX - 6);
  return name === '' ? null : name;
}

/** The username claim's value: the configured claim, else `preferred_username`, then `email`. */
export function usernameOf(claims: Record<string, unknown>, claim: string): string | null {
  if (claim !== '') return usernameFromClaim(claims[claim]);
  return usernameFromClaim(claims.preferred_username) ?? usernameFromClaim(claims.email);
}

/** The groups claim's values (a list, or one name); null when the claim is absent. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] | null {
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  return null;
}

export class SsoAccounts {
  constructor(private readonly deps: { writeLock: WriteLock }) {}

  async signIn(person: SsoPerson, map: GroupRoles, autoCreate: boolean): Promise<SsoOutcome> {
    const mapped = person.groups ? roleForGroups(map, person.groups) : null;
    try {
      return await this.deps.writeLock.run(({ transaction }) =>
        this.resolve(person, mapped, autoCreate, transaction),
      );
    } catch (err) {
      // Two processes creating an account at once (PostgreSQL), for this person or for another
      // with the same username: the one that lost tries once more, and finds this person's
      // account the other made, or the next free name.
      if (!(err instanceof UniqueConstraintError)) throw err;
      return this.deps.writeLock.run(({ transaction }) =>
        this.resolve(person, mapped, autoCreate, transaction),
      );
    }
  }

  private async resolve(
    person: SsoPerson,
    mapped: UserRole | null,
    autoCreate: boolean,
    transaction: Transaction,
  ): Promise<SsoOutcome> {
    const known = await User.findOne({
      where: { ssoIssuer: person.issuer, ssoSubject: person.subject },
      transaction,
    });
    if (known) {
      if (known.disabled) return { refused: 'sso-disabled-account', username: known.username };
      const roleBefore = mapped && mapped !== known.role ? known.role : null;
      if (roleBefore) await known.update({ role: mapped! }, { transaction });
      return { user: sessionUserOf(known, false), how: 'known', roleBefore };
    }
    if (!autoCreate) {
      const invited = await User.findOne({
        where: {
          username: person.username,
          ssoIssuer: null,
          passwordHash: '',
          inviteHash: { [Op.ne]: null },
        },
        transaction,
      });
      if (!invited) return { refused: 'sso-no-account', username: person.username };
      if (invited.disabled) return { refused: 'sso-disabled-account', username: invited.username };
      const roleBefore = mapped && mapped !== invited.role ? invited.role : null;
      await invited.update(
        {
          ssoIssuer: person.issuer,
          ssoSubject: person.subject,
          inviteHash: null,
          inviteExpiresAt: null,
          ...(mapped ? { role: mapped } : {}),
        },
        { transaction },
      );
      return { user: sessionUserOf(invited, false), how: 'bound', roleBefore };
    }
    const created = await User.create(
      {
        username: await freeUsername(person.username, transaction),
        passwordHash: '',
        role: mapped ?? 'viewer',
        ssoIssuer: person.issuer,
        ssoSubject: person.subject,
      },
      { transaction },
    );
    return { user: sessionUserOf(created, false), how: 'created', roleBefore: null };
  }
}

/** `name`, or the first of `name-2`, `name-3`… that no account has. */
async function freeUsername(name: string, transaction: Transaction): Promise<string> {
  const taken = new Set(
    (
      await User.findAll({
        attributes: ['username'],
        where: { [Op.or]: [{ username: name }, { username: { [Op.like]: `${name}-%` } }] },
        transaction,
      })
    ).map((u) => u.username),
  );
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? name : `${name}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
