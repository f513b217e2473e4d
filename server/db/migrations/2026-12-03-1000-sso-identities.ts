import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Signing in with OpenID Connect (issue 44, docs/running-for-a-team.md "OpenID Connect"). An
 * account is bound to the provider's person by issuer + subject (`iss` + `sub`), never by
 * name: the unique index keeps two accounts from holding one identity (NULLs, the password
 * accounts, do not collide on SQLite or PostgreSQL). A session remembers how it was opened
 * (`oidc`; NULL for a password), and for OpenID Connect the ID token, which sign-out hands
 * back to the provider's end_session_endpoint as `id_token_hint`.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('users', 'sso_issuer', { type: DataTypes.STRING(500), allowNull: true });
  await qi.addColumn('users', 'sso_subject', { type: DataTypes.STRING(255), allowNull: true });
  await qi.addIndex('users', ['sso_issuer', 'sso_subject'], {
    name: 'users_sso_identity',
    unique: true,
  });
  await qi.addColumn('sessions', 'sign_in_method', {
    type: DataTypes.STRING(16),
    allowNull: true,
  });
  await qi.addColumn('sessions', 'id_token', { type: DataTypes.TEXT, allowNull: true });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('users', 'users_sso_identity');
  // Plain DROP COLUMN, not removeColumn: on SQLite Sequelize would copy the table to drop one.
  for (const column of ['sso_issuer', 'sso_subject']) {
    await qi.sequelize.query(`ALTER TABLE users DROP COLUMN ${column}`);
  }
  for (const column of ['sign_in_method', 'id_token']) {
    await qi.sequelize.query(`ALTER TABLE sessions DROP COLUMN ${column}`);
  }
}
