import type { QueryInterface } from 'sequelize';

/**
 * A V2 send's placeholder warnings (issue 41 §2), kept with the send so its log shows what the
 * answer said: `[{kind, key, message}]`, NULL when there were none (every existing row). JSON as
 * `request` is: TEXT on SQLite, json on PostgreSQL. The statements are the same on both.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE sends ADD COLUMN warnings JSON');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Not removeColumn: on SQLite Sequelize copies the table to drop a column, and the copy
  // would lose the history triggers.
  await qi.sequelize.query('ALTER TABLE sends DROP COLUMN warnings');
}
