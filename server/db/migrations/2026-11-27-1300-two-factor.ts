import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * A second factor for signing in (issue 25, docs/security.md "Two-factor sign-in"): the
 * account's TOTP secret, sealed with the secret box like channel secrets; the one being set up,
 * until the person confirms it with a code; the last time step a code was accepted at, so no
 * step is accepted twice; and the SHA-256 of each unused recovery code, as a JSON array.
 */
const COLUMNS = ['totp_secret', 'totp_pending', 'totp_last_step', 'recovery_codes'] as const;

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('users', 'totp_secret', { type: DataTypes.STRING(255), allowNull: true });
  await qi.addColumn('users', 'totp_pending', { type: DataTypes.STRING(255), allowNull: true });
  await qi.addColumn('users', 'totp_last_step', { type: DataTypes.INTEGER, allowNull: true });
  await qi.addColumn('users', 'recovery_codes', { type: DataTypes.TEXT, allowNull: true });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Plain DROP COLUMN, not removeColumn: on SQLite Sequelize would copy the table to drop one.
  for (const column of COLUMNS) {
    await qi.sequelize.query(`ALTER TABLE users DROP COLUMN ${column}`);
  }
}
