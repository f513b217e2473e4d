import type { QueryInterface } from 'sequelize';

/**
 * A hosted message's files (issue 43 §2): `hosted_messages.attachments` lists the ids of the
 * files of the send it came from (JSON text, NULL when none), copied from its delivery's
 * `attachments` as the message is stored, so the reader can show images inline and the rest
 * as downloads. Hosted messages are never deleted; their files expire with the send's, and
 * the reader lists only those still stored.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE hosted_messages ADD COLUMN attachments TEXT');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Not removeColumn: on SQLite Sequelize copies the table to drop a column.
  await qi.sequelize.query('ALTER TABLE hosted_messages DROP COLUMN attachments');
}
