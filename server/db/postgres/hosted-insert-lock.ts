import type { Sequelize, Transaction } from 'sequelize';

import { ADVISORY_LOCKS } from './advisory-locks';
import { onPostgres } from './history-postgres';

/**
 * A hosted message takes its id from a sequence when its INSERT runs, but is seen only once its
 * transaction commits. With several processes on one PostgreSQL database, a message can
 * therefore commit after another with a higher id. Whatever takes "every message up to the
 * newest id" (read-all's watermark) must first let those inserts finish, or a message that
 * commits a moment later lands below the watermark: shown read, yet counted unread.
 *
 * Every INSERT into hosted_messages holds this advisory lock shared until its transaction ends.
 * A statement trigger takes it before any id is drawn (migration
 * 2026-11-29-1000-hosted-insert-lock). settleHostedInserts takes it exclusively, which waits
 * for the inserts under way and holds new ones back until its own transaction ends.
 */
export const HOSTED_INSERT_LOCK_KEYS = ADVISORY_LOCKS.hostedInserts;

/** In a write transaction, before reading the newest hosted message: see above. SQLite's one writer needs nothing. */
export async function settleHostedInserts(
  sequelize: Sequelize,
  transaction: Transaction,
): Promise<void> {
  if (!onPostgres(sequelize)) return;
  await sequelize.query(`SELECT pg_advisory_xact_lock(${HOSTED_INSERT_LOCK_KEYS})`, {
    transaction,
  });
}
