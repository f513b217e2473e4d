/**
 * The history tables both dialects share (migration 2026-11-23-1100-history-index): the search
 * backfill's progress, the row counters, the daily roll-ups of sends and deliveries, and the
 * latest failures' index, each written once. What differs is a small table per dialect: on
 * SQLite one row per key kept in place by row triggers; on PostgreSQL signed delta rows that
 * statement triggers append and readers sum (postgres/history-index-schema.ts says why).
 */
export interface HistoryTablesDialect {
  /** A count's column type. */
  count: 'INTEGER' | 'BIGINT';
  /** The UTC day (`YYYY-MM-DD`) of the row `alias` was created. */
  day(alias: string): string;
  /** How far the search backfill must go when the index is made. */
  backfillUntil(table: 'hosted_messages' | 'sends'): string;
  /** A table with one total per `keys`, looked up by `lookup`. */
  keyed(table: string, columns: string, keys: string[], lookup: string): string[];
}

/** A send's roll-up key; task and template ids are 0 where the send has none (NULL never equals NULL in a key). */
export const sendKey = (d: HistoryTablesDialect, a: string) =>
  `${d.day(a)} AS day, ${a}.api, coalesce(${a}.task_id, 0) AS task_id, ` +
  `coalesce(${a}.template_id, 0) AS template_id, ${a}.source_name, ${a}.status`;

/**
 * The status a delivery counts under in the daily roll-up: a claimed (`sending`) delivery
 * counts under the status it waits in, `queued` before its first attempt and `retrying` after,
 * so a claim changes no roll-up row (migration 2026-11-28-1100-lighter-hot-path).
 */
export const deliveryRollupStatus = (a: string) =>
  `(CASE WHEN ${a}.status = 'sending' THEN CASE WHEN ${a}.attempts > 0 THEN 'retrying' ` +
  `ELSE 'queued' END ELSE ${a}.status END)`;

export const deliveryKey = (d: HistoryTablesDialect, a: string) =>
  `${d.day(a)} AS day, ${a}.channel_id, ${deliveryRollupStatus(a)} AS status`;

export function historyTables(d: HistoryTablesDialect): string[] {
  return [
    `CREATE TABLE search_backfill (
       source TEXT PRIMARY KEY NOT NULL,
       done ${d.count} NOT NULL,
       until ${d.count} NOT NULL
     )${d.count === 'INTEGER' ? ' WITHOUT ROWID' : ''}`,
    `INSERT INTO search_backfill (source, done, until) VALUES
       ('hosted_messages', 0, ${d.backfillUntil('hosted_messages')}),
       ('sends', 0, ${d.backfillUntil('sends')})`,

    ...d.keyed('history_counters', `name TEXT NOT NULL, n ${d.count} NOT NULL`, ['name'], 'name'),
    `INSERT INTO history_counters (name, n) VALUES
       ('sends', (SELECT count(*) FROM sends)),
       ('hosted_messages', (SELECT count(*) FROM hosted_messages)),
       ('hosted_messages_unread', (SELECT count(*) FROM hosted_messages WHERE read_at IS NULL))`,

    ...d.keyed(
      'send_day_rollup',
      `day TEXT NOT NULL,
       api TEXT NOT NULL,
       task_id INTEGER NOT NULL,
       template_id INTEGER NOT NULL,
       source_name TEXT NOT NULL,
       status TEXT NOT NULL,
       n ${d.count} NOT NULL`,
      ['day', 'api', 'task_id', 'template_id', 'source_name', 'status'],
      'day',
    ),
    `INSERT INTO send_day_rollup (day, api, task_id, template_id, source_name, status, n)
       SELECT ${sendKey(d, 's')}, count(*) FROM sends s GROUP BY 1, 2, 3, 4, 5, 6`,
    ...d.keyed(
      'delivery_day_rollup',
      `day TEXT NOT NULL,
       channel_id INTEGER NOT NULL,
       status TEXT NOT NULL,
       n ${d.count} NOT NULL`,
      ['day', 'channel_id', 'status'],
      'day',
    ),
    `INSERT INTO delivery_day_rollup (day, channel_id, status, n)
       SELECT ${deliveryKey(d, 'd')}, count(*) FROM deliveries d GROUP BY 1, 2, 3`,
    // The dashboard's latest failures: only failed rows enter this index, so the hot path of
    // queued → sending → sent never touches it.
    `CREATE INDEX deliveries_failed_by_update ON deliveries (updated_at) WHERE status = 'failed'`,
  ];
}

/** The tables' drops, the reverse of historyTables (each dialect drops its own triggers first). */
export const DROP_HISTORY_TABLES = [
  'DROP INDEX IF EXISTS deliveries_failed_by_update',
  'DROP TABLE IF EXISTS delivery_day_rollup',
  'DROP TABLE IF EXISTS send_day_rollup',
  'DROP TABLE IF EXISTS history_counters',
  'DROP TABLE IF EXISTS search_backfill',
];
