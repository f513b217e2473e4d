import type { QueryInterface } from 'sequelize';

/**
 * An Aliyun SMS instance's own SMS template code (issue 26), as Message Nest keeps it on each
 * instance: `instances.template_code` is what the instance sends with, over its channel's, and
 * `deliveries.template_code` is the code a delivery was accepted with, kept like its recipient
 * so a retry sends what was accepted. NULL, the value of every existing row, means the
 * channel's code. The statements are the same on both dialects.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE instances ADD COLUMN template_code VARCHAR(64)');
  await qi.sequelize.query('ALTER TABLE deliveries ADD COLUMN template_code VARCHAR(64)');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Not removeColumn: on SQLite Sequelize copies the table to drop a column, and the copy
  // would lose the history triggers.
  await qi.sequelize.query('ALTER TABLE deliveries DROP COLUMN template_code');
  await qi.sequelize.query('ALTER TABLE instances DROP COLUMN template_code');
}
