import { Op, type WhereOptions } from 'sequelize';

import type { User } from '../../db/models';

/**
 * The accounts someone can sign in as: enabled, and with a way in: a password (set by an
 * administrator, or by accepting an invite) or an OpenID Connect identity bound to it (iss +
 * sub, features/sso/sso-accounts.ts). An invite never accepted is neither, so such an account
 * administers nothing and does not count as "another administrator". This is the one place
 * the rule lives.
 *
 * The trusted proxy header (features/sso/auth-proxy.ts) can sign in any enabled account it
 * names, password or not; those are not counted here, which errs towards refusing: two
 * administrators the proxy made (no password, no binding) are both "the last" until one of
 * them has a password.
 */
export const CAN_SIGN_IN = {
  disabled: false,
  [Op.or]: [{ passwordHash: { [Op.ne]: '' } }, { ssoSubject: { [Op.ne]: null } }],
} satisfies WhereOptions<User>;
