import type { QueryInterface } from 'sequelize';

import { HOSTED_INSERT_LOCK_KEYS } from '../postgres/hosted-insert-lock';

/**
 * PostgreSQL only: every INSERT into hosted_messages holds an advisory lock shared until its
 * transaction ends, taken by a statement trigger before any id is drawn, so that read-all can
 * wait for inserts under way (server/db/postgres/hosted-insert-lock.ts). SQLite has one writer
 * and needs nothing.
 */
const POSTGRES = [
  `CREATE OR REPLACE FUNCTION hosted_messages_insert_lock() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_advisory_xact_lock_shared(${HOSTED_INSERT_LOCK_KEYS});
     RETURN NULL;
   END $$`,
  'DROP TRIGGER IF EXISTS hosted_messages_insert_lock ON hosted_messages',
  `CREATE TRIGGER hosted_messages_insert_lock BEFORE INSERT ON hosted_messages
   FOR EACH STATEMENT EXECUTE FUNCTION hosted_messages_insert_lock()`,
];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (qi.sequelize.getDialect() !== 'postgres') return;
  await qi.sequelize.transaction(async (transaction) => {
    for (const sql of POSTGRES) await qi.sequelize.query(sql, { transaction });
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (qi.sequelize.getDialect() !== 'postgres') return;
  await qi.sequelize.query('DROP TRIGGER IF EXISTS hosted_messages_insert_lock ON hosted_messages');
  await qi.sequelize.query('DROP FUNCTION IF EXISTS hosted_messages_insert_lock()');
}
