import type { QueryInterface } from 'sequelize';

/**
 * Priority and dedup (issue 24, docs/send-api.md "Priority" and "Dedup for alert storms").
 *
 * - `priority` on sends, deliveries and hosted messages: 1 … 5, null when the sender gave
 *   none (each channel then uses its own default). Deliveries carry it so a retry sends what
 *   was accepted; hosted messages so the reader can sort and mark them.
 * - `repeats` on deliveries: how many sends with the same dedup key were suppressed between
 *   the last delivered one and this one.
 * - On sends: the `dedup_key` given, `suppressed_by` (the send a suppressed one was counted
 *   on) and `suppressed_count` (how many were counted on this one).
 * - `dedup_windows`: one row per task or template (`scope`) and key, taken under a row lock in
 *   the accept's transaction, so processes sharing a PostgreSQL database agree on which send
 *   opened a window. `suppressed` counts the open window's suppressed sends;
 *   `previous_suppressed` keeps the count of the window before, for the send that opened
 *   this one (its `repeats`). Times are epoch ms, as the delivery queue's are.
 *
 * ADD COLUMN rather than Sequelize's addColumn: the statements are the same on both dialects,
 * and SQLite keeps the tables (and their history triggers) as they are.
 */
const STATEMENTS = [
  'ALTER TABLE sends ADD COLUMN priority INTEGER',
  'ALTER TABLE sends ADD COLUMN dedup_key TEXT',
  'ALTER TABLE sends ADD COLUMN suppressed_by INTEGER',
  'ALTER TABLE sends ADD COLUMN suppressed_count INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE deliveries ADD COLUMN priority INTEGER',
  'ALTER TABLE deliveries ADD COLUMN repeats INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE hosted_messages ADD COLUMN priority INTEGER',
  `CREATE TABLE dedup_windows (
     scope TEXT NOT NULL,
     dedup_key TEXT NOT NULL,
     first_send_id INTEGER,
     window_until BIGINT NOT NULL,
     suppressed INTEGER NOT NULL DEFAULT 0,
     previous_suppressed INTEGER NOT NULL DEFAULT 0,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (scope, dedup_key)
   )`,
  // Retention drops windows long closed (server/db/history/retention.ts).
  'CREATE INDEX dedup_windows_until ON dedup_windows (window_until)',
];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const statement of STATEMENTS) await qi.sequelize.query(statement);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('DROP TABLE IF EXISTS dedup_windows');
  for (const [table, column] of [
    ['hosted_messages', 'priority'],
    ['deliveries', 'repeats'],
    ['deliveries', 'priority'],
    ['sends', 'suppressed_count'],
    ['sends', 'suppressed_by'],
    ['sends', 'dedup_key'],
    ['sends', 'priority'],
  ]) {
    await qi.sequelize.query(`ALTER TABLE ${table} DROP COLUMN ${column}`);
  }
}
