import type { QueryInterface } from 'sequelize';

/**
 * The names an audit entry refers to by id (issue 41 §13): `audit_entries.names` is a JSON object
 * from `<kind>:<id>` to the name that thing had when the entry was written (`{"template:1":
 * "Nightly", "channel:2": "Ops"}`), so that "bob linked template Nightly to channel Ops" still
 * reads so after either is renamed or deleted. NULL, the value of every existing row, is no
 * names: those entries read as before. The statements are the same on both dialects.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE audit_entries ADD COLUMN names TEXT');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Not removeColumn: on SQLite Sequelize copies the table to drop a column.
  await qi.sequelize.query('ALTER TABLE audit_entries DROP COLUMN names');
}
