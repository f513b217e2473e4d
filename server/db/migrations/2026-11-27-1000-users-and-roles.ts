import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Users for a team (issue 25, docs/running-for-a-team.md): each account has a role and can be
 * disabled; an invited account carries the hash of its one-time sign-in link until the person
 * sets a password. Sessions remember where they were opened, so "your sessions" can be listed.
 *
 * The role column defaults to the least privilege, so a row written without one can do least;
 * the accounts that exist before this migration were administrators and stay so.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('users', 'role', {
    type: DataTypes.STRING(16),
    allowNull: false,
    defaultValue: 'viewer',
  });
  await qi.sequelize.query(`UPDATE users SET role = 'admin'`);
  await qi.addColumn('users', 'disabled', {
    type: DataTypes.BOOLEAN,
    allowNull: false,
    defaultValue: false,
  });
  await qi.addColumn('users', 'invite_hash', { type: DataTypes.STRING(64), allowNull: true });
  await qi.addColumn('users', 'invite_expires_at', { type: DataTypes.DATE, allowNull: true });
  await qi.addIndex('users', ['invite_hash'], { name: 'users_invite_hash' });
  await qi.addColumn('sessions', 'ip', { type: DataTypes.STRING(64), allowNull: true });
  await qi.addColumn('sessions', 'user_agent', { type: DataTypes.STRING(300), allowNull: true });
  await qi.addColumn('sessions', 'last_seen_at', { type: DataTypes.DATE, allowNull: true });
  await qi.addIndex('sessions', ['user_id'], { name: 'sessions_user_id' });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Plain DROP COLUMN, not removeColumn: on SQLite Sequelize would copy the table to drop one.
  await qi.removeIndex('sessions', 'sessions_user_id');
  for (const column of ['ip', 'user_agent', 'last_seen_at']) {
    await qi.sequelize.query(`ALTER TABLE sessions DROP COLUMN ${column}`);
  }
  await qi.removeIndex('users', 'users_invite_hash');
  for (const column of ['role', 'disabled', 'invite_hash', 'invite_expires_at']) {
    await qi.sequelize.query(`ALTER TABLE users DROP COLUMN ${column}`);
  }
}
