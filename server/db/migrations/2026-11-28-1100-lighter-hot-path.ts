import type { QueryInterface } from 'sequelize';

import { deliveryRollupStatus } from '../history/history-tables';
import { POSTGRES_DELIVERIES_HISTORY } from '../postgres/history-index-schema';

/**
 * Less trigger work per delivery and per send (issue 26, docs/architecture.md "Search and
 * history"):
 *
 * - The daily delivery roll-up no longer counts the transient `sending` status: a claimed
 *   delivery counts under the status it waits in, `queued` before its first attempt and
 *   `retrying` after (the state table's `waiting`, which is exact: attempts > 0 is retrying).
 *   A claim then changes no roll-up row; only the outcome moves one.
 * - On SQLite, a new send is no longer put into the full-text index by its INSERT trigger: the
 *   search indexer (history/search-backfill.ts) indexes new sends in batches after the fact,
 *   and searches scan the sends not yet indexed, as they already did for the backfill. A send
 *   whose text changes before it is indexed is left to the indexer too.
 *
 * PostgreSQL keeps its GIN index as before; only its roll-up function changes.
 */
const SQLITE = [
  'DROP TRIGGER IF EXISTS deliveries_history_insert',
  'DROP TRIGGER IF EXISTS deliveries_history_delete',
  'DROP TRIGGER IF EXISTS deliveries_history_rollup',
  `CREATE TRIGGER deliveries_history_insert AFTER INSERT ON deliveries BEGIN
     INSERT INTO delivery_day_rollup (day, channel_id, status, n)
       VALUES (substr(new.created_at, 1, 10), new.channel_id, ${deliveryRollupStatus('new')}, 1)
       ON CONFLICT DO UPDATE SET n = n + 1;
   END`,
  `CREATE TRIGGER deliveries_history_delete AFTER DELETE ON deliveries BEGIN
     UPDATE delivery_day_rollup SET n = n - 1
       WHERE day = substr(old.created_at, 1, 10) AND channel_id = old.channel_id
         AND status = ${deliveryRollupStatus('old')};
   END`,
  `CREATE TRIGGER deliveries_history_rollup AFTER UPDATE OF status, attempts, channel_id,
     created_at ON deliveries
   WHEN ${deliveryRollupStatus('old')} IS NOT ${deliveryRollupStatus('new')} OR old.channel_id IS NOT new.channel_id
     OR old.created_at IS NOT new.created_at BEGIN
     UPDATE delivery_day_rollup SET n = n - 1
       WHERE day = substr(old.created_at, 1, 10) AND channel_id = old.channel_id
         AND status = ${deliveryRollupStatus('old')};
     INSERT INTO delivery_day_rollup (day, channel_id, status, n)
       VALUES (substr(new.created_at, 1, 10), new.channel_id, ${deliveryRollupStatus('new')}, 1)
       ON CONFLICT DO UPDATE SET n = n + 1;
   END`,
  // Claims a stopped process left behind, counted as `sending` until now.
  `INSERT INTO delivery_day_rollup (day, channel_id, status, n)
     SELECT substr(d.created_at, 1, 10), d.channel_id, ${deliveryRollupStatus('d')}, count(*)
     FROM deliveries d WHERE d.status = 'sending' GROUP BY 1, 2, 3 HAVING true
     ON CONFLICT DO UPDATE SET n = n + excluded.n`,
  "DELETE FROM delivery_day_rollup WHERE status = 'sending'",

  'DROP TRIGGER IF EXISTS sends_history_insert',
  'DROP TRIGGER IF EXISTS sends_history_text',
  `CREATE TRIGGER sends_history_insert AFTER INSERT ON sends BEGIN
     UPDATE history_counters SET n = n + 1 WHERE name = 'sends';
     INSERT INTO send_day_rollup (day, api, task_id, template_id, source_name, status, n)
       VALUES (substr(new.created_at, 1, 10), new.api, coalesce(new.task_id, 0),
               coalesce(new.template_id, 0), new.source_name, new.status, 1)
       ON CONFLICT DO UPDATE SET n = n + 1;
   END`,
  // Only a send already indexed is indexed again; the indexer reads the others' text when it
  // comes to them.
  `CREATE TRIGGER sends_history_text AFTER UPDATE OF title, text, html, markdown ON sends
   WHEN old.title IS NOT new.title OR old.text IS NOT new.text OR old.html IS NOT new.html
     OR old.markdown IS NOT new.markdown BEGIN
     DELETE FROM sends_fts WHERE rowid = old.id;
     INSERT INTO sends_fts (rowid, title, text, html, markdown)
       SELECT new.id, new.title || char(1), new.text || char(1), new.html || char(1),
              new.markdown || char(1) FROM search_backfill b
       WHERE b.source = 'sends' AND new.id <= b.done;
   END`,
];

/** The roll-up function of 2026-11-23-1100 and the rows it counted as `sending`. */
const POSTGRES = [
  POSTGRES_DELIVERIES_HISTORY,
  `INSERT INTO delivery_day_rollup (day, channel_id, status, n)
     SELECT day, channel_id, status, sum(d) FROM (
       SELECT to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, x.channel_id,
              ${deliveryRollupStatus('x')} AS status, count(*) AS d
       FROM deliveries x WHERE x.status = 'sending' GROUP BY 1, 2, 3
       UNION ALL
       SELECT to_char(x.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), x.channel_id, 'sending',
              -count(*)
       FROM deliveries x WHERE x.status = 'sending' GROUP BY 1, 2) AS delta
     GROUP BY day, channel_id, status HAVING sum(d) <> 0`,
];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const statements = qi.sequelize.getDialect() === 'postgres' ? POSTGRES : SQLITE;
  await qi.sequelize.transaction(async (transaction) => {
    for (const sql of statements) await qi.sequelize.query(sql, { transaction });
  });
}

export async function down(): Promise<void> {
  throw new Error('2026-11-28-1100-lighter-hot-path cannot be undone: restore a backup instead');
}
