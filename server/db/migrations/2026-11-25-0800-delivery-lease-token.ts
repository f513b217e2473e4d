import type { QueryInterface } from 'sequelize';

/**
 * The lease token of the claim that holds a `sending` delivery (server/queue/store/hot-path.ts).
 * A claim writes its token with the lease, and an outcome or defer is recorded only under the
 * token of the claim it ran under: when a lease runs out and another process takes the
 * delivery over, the first process's late outcome no longer overwrites the second's.
 *
 * Deliveries being sent while this runs have no token; startup recovery or a takeover when
 * their lease ends gives them back to a claim that writes one. The statement is the same on
 * both dialects.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE deliveries ADD COLUMN lease_token TEXT');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Not removeColumn: on SQLite Sequelize copies the table to drop a column, and the copy
  // would lose the history triggers.
  await qi.sequelize.query('ALTER TABLE deliveries DROP COLUMN lease_token');
}
