import type { QueryInterface } from 'sequelize';

import {
  DROP_HISTORY_TABLES,
  historyTables,
  type HistoryTablesDialect,
} from '../history/history-tables';
import * as postgres from '../postgres/history-index-schema';

/** SQLite's side of the tables both dialects share: one row per key, without a rowid. */
const SQLITE_TABLES: HistoryTablesDialect = {
  count: 'INTEGER',
  day: (alias) => `substr(${alias}.created_at, 1, 10)`,
  backfillUntil: (table) => `(SELECT coalesce(max(id), 0) FROM ${table})`,
  keyed: (table, columns, keys) => [
    `CREATE TABLE ${table} (${columns}, PRIMARY KEY (${keys.join(', ')})) WITHOUT ROWID`,
  ],
};

/**
 * History at scale: a full-text index of hosted messages and sends, row counters, and daily
 * roll-ups for the dashboard, all kept by triggers so that whatever code writes a row, the same
 * transaction keeps them current (docs/architecture.md, "Search and history").
 *
 * The full-text tables are contentless (nothing is stored twice) with contentless_delete, so a
 * trigger deletes an entry by rowid without knowing the text it indexed. Each column is indexed
 * with a trailing char(1) so that a 1–2 character query at the very end of a column still has a
 * trigram that starts with it (see server/db/history/history-search.ts).
 *
 * Rows that exist when this runs are indexed after start, in batches (search-backfill.ts):
 * search_backfill records the range still to do, and the update triggers leave rows of that
 * range to the backfill so that no row is ever indexed twice.
 *
 * The tables both dialects share are written once (history/history-tables.ts); this file adds
 * SQLite's full-text index and row triggers, postgres/history-index-schema.ts PostgreSQL's
 * trigram index and statement triggers.
 */
const statements = [
  `CREATE VIRTUAL TABLE hosted_messages_fts USING fts5(title, content,
     content='', contentless_delete=1, tokenize='trigram')`,
  `CREATE VIRTUAL TABLE hosted_messages_fts_terms USING fts5vocab(hosted_messages_fts, 'row')`,
  `CREATE VIRTUAL TABLE sends_fts USING fts5(title, text, html, markdown,
     content='', contentless_delete=1, tokenize='trigram')`,
  `CREATE VIRTUAL TABLE sends_fts_terms USING fts5vocab(sends_fts, 'row')`,

  ...historyTables(SQLITE_TABLES),

  `CREATE TRIGGER hosted_messages_history_insert AFTER INSERT ON hosted_messages BEGIN
     INSERT INTO hosted_messages_fts (rowid, title, content)
       VALUES (new.id, new.title || char(1), new.content || char(1));
     UPDATE history_counters SET n = n + 1 WHERE name = 'hosted_messages';
     UPDATE history_counters SET n = n + 1
       WHERE name = 'hosted_messages_unread' AND new.read_at IS NULL;
   END`,
  `CREATE TRIGGER hosted_messages_history_delete AFTER DELETE ON hosted_messages BEGIN
     DELETE FROM hosted_messages_fts WHERE rowid = old.id;
     UPDATE history_counters SET n = n - 1 WHERE name = 'hosted_messages';
     UPDATE history_counters SET n = n - 1
       WHERE name = 'hosted_messages_unread' AND old.read_at IS NULL;
   END`,
  `CREATE TRIGGER hosted_messages_history_read AFTER UPDATE OF read_at ON hosted_messages
   WHEN (old.read_at IS NULL) <> (new.read_at IS NULL) BEGIN
     UPDATE history_counters SET n = n + (CASE WHEN new.read_at IS NULL THEN 1 ELSE -1 END)
       WHERE name = 'hosted_messages_unread';
   END`,
  `CREATE TRIGGER hosted_messages_history_text AFTER UPDATE OF title, content ON hosted_messages
   WHEN old.title IS NOT new.title OR old.content IS NOT new.content BEGIN
     DELETE FROM hosted_messages_fts WHERE rowid = old.id;
     INSERT INTO hosted_messages_fts (rowid, title, content)
       SELECT new.id, new.title || char(1), new.content || char(1) FROM search_backfill b
       WHERE b.source = 'hosted_messages' AND (new.id <= b.done OR new.id > b.until);
   END`,

  `CREATE TRIGGER sends_history_insert AFTER INSERT ON sends BEGIN
     INSERT INTO sends_fts (rowid, title, text, html, markdown)
       VALUES (new.id, new.title || char(1), new.text || char(1), new.html || char(1),
               new.markdown || char(1));
     UPDATE history_counters SET n = n + 1 WHERE name = 'sends';
     INSERT INTO send_day_rollup (day, api, task_id, template_id, source_name, status, n)
       VALUES (substr(new.created_at, 1, 10), new.api, coalesce(new.task_id, 0),
               coalesce(new.template_id, 0), new.source_name, new.status, 1)
       ON CONFLICT DO UPDATE SET n = n + 1;
   END`,
  `CREATE TRIGGER sends_history_delete AFTER DELETE ON sends BEGIN
     DELETE FROM sends_fts WHERE rowid = old.id;
     UPDATE history_counters SET n = n - 1 WHERE name = 'sends';
     UPDATE send_day_rollup SET n = n - 1
       WHERE day = substr(old.created_at, 1, 10) AND api = old.api
         AND task_id = coalesce(old.task_id, 0) AND template_id = coalesce(old.template_id, 0)
         AND source_name = old.source_name AND status = old.status;
   END`,
  `CREATE TRIGGER sends_history_rollup AFTER UPDATE OF status, api, task_id, template_id,
     source_name, created_at ON sends
   WHEN old.status IS NOT new.status OR old.api IS NOT new.api
     OR old.task_id IS NOT new.task_id OR old.template_id IS NOT new.template_id
     OR old.source_name IS NOT new.source_name OR old.created_at IS NOT new.created_at BEGIN
     UPDATE send_day_rollup SET n = n - 1
       WHERE day = substr(old.created_at, 1, 10) AND api = old.api
         AND task_id = coalesce(old.task_id, 0) AND template_id = coalesce(old.template_id, 0)
         AND source_name = old.source_name AND status = old.status;
     INSERT INTO send_day_rollup (day, api, task_id, template_id, source_name, status, n)
       VALUES (substr(new.created_at, 1, 10), new.api, coalesce(new.task_id, 0),
               coalesce(new.template_id, 0), new.source_name, new.status, 1)
       ON CONFLICT DO UPDATE SET n = n + 1;
   END`,
  `CREATE TRIGGER sends_history_text AFTER UPDATE OF title, text, html, markdown ON sends
   WHEN old.title IS NOT new.title OR old.text IS NOT new.text OR old.html IS NOT new.html
     OR old.markdown IS NOT new.markdown BEGIN
     DELETE FROM sends_fts WHERE rowid = old.id;
     INSERT INTO sends_fts (rowid, title, text, html, markdown)
       SELECT new.id, new.title || char(1), new.text || char(1), new.html || char(1),
              new.markdown || char(1) FROM search_backfill b
       WHERE b.source = 'sends' AND (new.id <= b.done OR new.id > b.until);
   END`,

  `CREATE TRIGGER deliveries_history_insert AFTER INSERT ON deliveries BEGIN
     INSERT INTO delivery_day_rollup (day, channel_id, status, n)
       VALUES (substr(new.created_at, 1, 10), new.channel_id, new.status, 1)
       ON CONFLICT DO UPDATE SET n = n + 1;
   END`,
  `CREATE TRIGGER deliveries_history_delete AFTER DELETE ON deliveries BEGIN
     UPDATE delivery_day_rollup SET n = n - 1
       WHERE day = substr(old.created_at, 1, 10) AND channel_id = old.channel_id
         AND status = old.status;
   END`,
  `CREATE TRIGGER deliveries_history_rollup AFTER UPDATE OF status, channel_id, created_at
     ON deliveries
   WHEN old.status IS NOT new.status OR old.channel_id IS NOT new.channel_id
     OR old.created_at IS NOT new.created_at BEGIN
     UPDATE delivery_day_rollup SET n = n - 1
       WHERE day = substr(old.created_at, 1, 10) AND channel_id = old.channel_id
         AND status = old.status;
     INSERT INTO delivery_day_rollup (day, channel_id, status, n)
       VALUES (substr(new.created_at, 1, 10), new.channel_id, new.status, 1)
       ON CONFLICT DO UPDATE SET n = n + 1;
   END`,
];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (qi.sequelize.getDialect() === 'postgres') return postgres.up(qi);
  await qi.sequelize.transaction(async (transaction) => {
    for (const sql of statements) await qi.sequelize.query(sql, { transaction });
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (qi.sequelize.getDialect() === 'postgres') return postgres.down(qi);
  for (const sql of [
    'DROP TRIGGER IF EXISTS deliveries_history_rollup',
    'DROP TRIGGER IF EXISTS deliveries_history_delete',
    'DROP TRIGGER IF EXISTS deliveries_history_insert',
    'DROP TRIGGER IF EXISTS sends_history_text',
    'DROP TRIGGER IF EXISTS sends_history_rollup',
    'DROP TRIGGER IF EXISTS sends_history_delete',
    'DROP TRIGGER IF EXISTS sends_history_insert',
    'DROP TRIGGER IF EXISTS hosted_messages_history_text',
    'DROP TRIGGER IF EXISTS hosted_messages_history_read',
    'DROP TRIGGER IF EXISTS hosted_messages_history_delete',
    'DROP TRIGGER IF EXISTS hosted_messages_history_insert',
    ...DROP_HISTORY_TABLES,
    'DROP TABLE IF EXISTS sends_fts_terms',
    'DROP TABLE IF EXISTS sends_fts',
    'DROP TABLE IF EXISTS hosted_messages_fts_terms',
    'DROP TABLE IF EXISTS hosted_messages_fts',
  ]) {
    await qi.sequelize.query(sql);
  }
}
