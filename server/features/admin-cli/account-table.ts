import type { AdminAccount } from './accounts';

/** A time as people compare it with a clock: `2026-11-28 14:05 UTC`. */
export const shortUtc = (iso: string): string => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** What the account can do now: sign in, not yet (invited), or not at all (disabled). */
function stateOf(account: AdminAccount, now: number): string {
  const base = account.disabled ? 'disabled' : account.passwordSet ? 'active' : 'invited';
  const until = account.signInLinkExpiresAt;
  if (until === null || account.disabled) return base;
  return Date.parse(until) < now
    ? `${base}, link expired`
    : `${base}, link until ${shortUtc(until)}`;
}

/** The accounts as a plain table with aligned columns, one account a line. */
export function formatAccountTable(accounts: AdminAccount[], now: number): string {
  const rows = [
    ['NAME', 'ROLE', 'STATE', 'TWO-FACTOR', 'CREATED'],
    ...accounts.map((a) => [
      a.username,
      a.role,
      stateOf(a, now),
      a.twoFactor ? 'on' : 'off',
      a.createdAt.slice(0, 10),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
