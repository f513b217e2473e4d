import { Session, User } from '../../db/models';

import { twoFactorStateOf } from './auth-service';

/**
 * The sessions a requirement of two-factor shuts out until their account sets it up: the ones
 * whose open streams must end when the administrator turns `requireTwoFactor` on. The account
 * is judged by twoFactorStateOf, the rule every request's session is judged by.
 *
 * Sessions rather than accounts, because the requirement is about how a session signed in: a
 * session opened through OpenID Connect (`signInMethod` set) is exempt, the provider being its
 * second factor (AuthService.userForSession), so its streams carry on.
 */
export async function sessionsAwaitingTwoFactor(): Promise<string[]> {
  const users = await User.findAll({ where: { totpSecret: null } });
  const shutOut = users.filter((u) => twoFactorStateOf(u, true) === 'required').map((u) => u.id);
  if (shutOut.length === 0) return [];
  const sessions = await Session.findAll({
    where: { userId: shutOut, signInMethod: null },
    attributes: ['id'],
  });
  return sessions.map((s) => s.id);
}
