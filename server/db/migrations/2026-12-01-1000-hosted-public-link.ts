import type { QueryInterface } from 'sequelize';

/**
 * Every hosted message used to get a public share link when its send was accepted, and the
 * send answer carried it as `hostMessageUrl` (issue 41 §7). That is now a setting of each
 * hosted instance, `instances.public_link`, off for new instances. Hosted instances that exist
 * already keep the old behaviour, so a script reading `hostMessageUrl` does not break on the
 * upgrade; the column means nothing on other kinds, which stay false. The statements are the
 * same on both dialects (SQLite knows TRUE and FALSE since 3.23).
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query(
    'ALTER TABLE instances ADD COLUMN public_link BOOLEAN NOT NULL DEFAULT FALSE',
  );
  await qi.sequelize.query(
    `UPDATE instances SET public_link = TRUE
     WHERE channel_id IN (SELECT id FROM channels WHERE type = 'hosted')`,
  );
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Not removeColumn: on SQLite Sequelize copies the table to drop a column.
  await qi.sequelize.query('ALTER TABLE instances DROP COLUMN public_link');
}
