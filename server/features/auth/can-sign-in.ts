import { Op, type WhereOptions } from 'sequelize';

import type { User } from '../../db/models';

/**
 * The accounts someone can sign in as: enabled, and with a way in. Today that way is a password
 * (set by an administrator, or by accepting an invite); an invite never accepted is none, so
 * such an account administers nothing and does not count as "another administrator". This is
 * the one place the rule lives: a sign-in by SSO (an account bound to its provider) is added
 * here when it lands. The trusted proxy header (features/sso/auth-proxy.ts) can sign in any
 * enabled account it names, password or not; it is not counted here, which errs towards
 * refusing: two administrators the proxy made (no password) are both "the last" until one of
 * them has a password.
 */
export const CAN_SIGN_IN = {
  disabled: false,
  passwordHash: { [Op.ne]: '' },
} satisfies WhereOptions<User>;
