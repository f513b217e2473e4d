import type { QueryInterface } from 'sequelize';

import { indexedText } from './search-text';

/**
 * The history index of migration 2026-11-23-1100 on PostgreSQL (docs/architecture.md,
 * "PostgreSQL"): the same counters, daily roll-ups and partial index as on SQLite, and instead
 * of FTS5 a `pg_trgm` GIN index per table over its searchable text (search-text.ts).
 *
 * The index is built by CREATE INDEX from the rows already there, so nothing is left for the
 * backfill: search_backfill exists (the code reads it) with nothing to do.
 *
 * Counters and roll-ups are kept by statement-level triggers in PL/pgSQL over transition
 * tables, and they only ever INSERT signed deltas (one row per key a statement changed): no
 * row is shared between transactions, so processes claiming, recording and accepting at once
 * never wait for each other's commit here. (Updating one counter row in place would lock it
 * until commit: every write cycle of every process would queue behind the one before, and a
 * cycle that stays open would stop them all.) Readers sum the deltas by key, which gives the
 * same answer as SQLite's one row per key; compactHistoryTotals (history-postgres.ts) folds
 * them back into one row per key with the hourly housekeeping.
 */
const DAY = (alias: string) => `to_char(${alias}.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

const SEND_KEY = (a: string) =>
  `${DAY(a)} AS day, ${a}.api, coalesce(${a}.task_id, 0) AS task_id, ` +
  `coalesce(${a}.template_id, 0) AS template_id, ${a}.source_name, ${a}.status`;
const DELIVERY_KEY = (a: string) => `${DAY(a)} AS day, ${a}.channel_id, ${a}.status`;

/** Appends the signed deltas of `rows` (+1 and -1 rows), one per key that changed. */
function appendDeltas(table: string, keys: string[], rows: string): string {
  const k = keys.join(', ');
  return `INSERT INTO ${table} (${k}, n)
      SELECT ${k}, sum(d) FROM (${rows}) AS delta GROUP BY ${k} HAVING sum(d) <> 0;`;
}

const SEND_KEYS = ['day', 'api', 'task_id', 'template_id', 'source_name', 'status'];
const DELIVERY_KEYS = ['day', 'channel_id', 'status'];

const sendsPlus = `SELECT ${SEND_KEY('x')}, 1 AS d FROM new_rows x`;
const sendsMinus = `SELECT ${SEND_KEY('x')}, -1 AS d FROM old_rows x`;
const deliveriesPlus = `SELECT ${DELIVERY_KEY('x')}, 1 AS d FROM new_rows x`;
const deliveriesMinus = `SELECT ${DELIVERY_KEY('x')}, -1 AS d FROM old_rows x`;

const counter = (name: string, delta: string) =>
  `INSERT INTO history_counters (name, n) SELECT '${name}', n FROM (${delta}) AS c(n) WHERE n <> 0;`;

// Each branch names only the transition tables its event has: PL/pgSQL plans a statement
// when it first runs, so the others are never looked at.
const statements = [
  'CREATE EXTENSION IF NOT EXISTS pg_trgm',
  `CREATE INDEX hosted_messages_search ON hosted_messages
     USING gin (${indexedText('hosted_messages')} gin_trgm_ops)`,
  `CREATE INDEX sends_search ON sends USING gin (${indexedText('sends')} gin_trgm_ops)`,

  `CREATE TABLE search_backfill (
     source TEXT PRIMARY KEY NOT NULL,
     done BIGINT NOT NULL,
     until BIGINT NOT NULL
   )`,
  `INSERT INTO search_backfill (source, done, until) VALUES ('hosted_messages', 0, 0), ('sends', 0, 0)`,

  `CREATE TABLE history_counters (name TEXT NOT NULL, n BIGINT NOT NULL)`,
  `CREATE INDEX history_counters_name ON history_counters (name)`,
  `INSERT INTO history_counters (name, n) VALUES
     ('sends', (SELECT count(*) FROM sends)),
     ('hosted_messages', (SELECT count(*) FROM hosted_messages)),
     ('hosted_messages_unread', (SELECT count(*) FROM hosted_messages WHERE read_at IS NULL))`,

  `CREATE TABLE send_day_rollup (
     day TEXT NOT NULL,
     api TEXT NOT NULL,
     task_id INTEGER NOT NULL,
     template_id INTEGER NOT NULL,
     source_name TEXT NOT NULL,
     status TEXT NOT NULL,
     n BIGINT NOT NULL
   )`,
  `CREATE INDEX send_day_rollup_day ON send_day_rollup (day)`,
  `INSERT INTO send_day_rollup (day, api, task_id, template_id, source_name, status, n)
     SELECT ${SEND_KEY('s')}, count(*) FROM sends s GROUP BY 1, 2, 3, 4, 5, 6`,
  `CREATE TABLE delivery_day_rollup (
     day TEXT NOT NULL,
     channel_id INTEGER NOT NULL,
     status TEXT NOT NULL,
     n BIGINT NOT NULL
   )`,
  `CREATE INDEX delivery_day_rollup_day ON delivery_day_rollup (day)`,
  `INSERT INTO delivery_day_rollup (day, channel_id, status, n)
     SELECT ${DELIVERY_KEY('d')}, count(*) FROM deliveries d GROUP BY 1, 2, 3`,
  `CREATE INDEX deliveries_failed_by_update ON deliveries (updated_at) WHERE status = 'failed'`,

  `CREATE FUNCTION herald_sends_history() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       ${appendDeltas('send_day_rollup', SEND_KEYS, sendsPlus)}
       ${counter('sends', 'SELECT count(*) FROM new_rows')}
     ELSIF TG_OP = 'DELETE' THEN
       ${appendDeltas('send_day_rollup', SEND_KEYS, sendsMinus)}
       ${counter('sends', 'SELECT -count(*) FROM old_rows')}
     ELSE
       ${appendDeltas('send_day_rollup', SEND_KEYS, `${sendsPlus} UNION ALL ${sendsMinus}`)}
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE FUNCTION herald_deliveries_history() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       ${appendDeltas('delivery_day_rollup', DELIVERY_KEYS, deliveriesPlus)}
     ELSIF TG_OP = 'DELETE' THEN
       ${appendDeltas('delivery_day_rollup', DELIVERY_KEYS, deliveriesMinus)}
     ELSE
       ${appendDeltas('delivery_day_rollup', DELIVERY_KEYS, `${deliveriesPlus} UNION ALL ${deliveriesMinus}`)}
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE FUNCTION herald_hosted_messages_history() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       ${counter('hosted_messages', 'SELECT count(*) FROM new_rows')}
       ${counter('hosted_messages_unread', 'SELECT count(*) FROM new_rows WHERE read_at IS NULL')}
     ELSIF TG_OP = 'DELETE' THEN
       ${counter('hosted_messages', 'SELECT -count(*) FROM old_rows')}
       ${counter('hosted_messages_unread', 'SELECT -count(*) FROM old_rows WHERE read_at IS NULL')}
     ELSE
       ${counter(
         'hosted_messages_unread',
         `SELECT (SELECT count(*) FROM new_rows WHERE read_at IS NULL)
               - (SELECT count(*) FROM old_rows WHERE read_at IS NULL)`,
       )}
     END IF;
     RETURN NULL;
   END $$`,
  ...['INSERT', 'UPDATE', 'DELETE'].flatMap((event) =>
    (['sends', 'deliveries', 'hosted_messages'] as const).map((table) => {
      const tables =
        event === 'INSERT'
          ? 'NEW TABLE AS new_rows'
          : event === 'DELETE'
            ? 'OLD TABLE AS old_rows'
            : 'OLD TABLE AS old_rows NEW TABLE AS new_rows';
      return `CREATE TRIGGER ${table}_history_${event.toLowerCase()} AFTER ${event} ON ${table}
        REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION herald_${table}_history()`;
    }),
  ),
];

export async function up(qi: QueryInterface): Promise<void> {
  await qi.sequelize.transaction(async (transaction) => {
    for (const sql of statements) await qi.sequelize.query(sql, { transaction });
  });
}

export async function down(qi: QueryInterface): Promise<void> {
  for (const sql of [
    'DROP FUNCTION IF EXISTS herald_sends_history() CASCADE',
    'DROP FUNCTION IF EXISTS herald_deliveries_history() CASCADE',
    'DROP FUNCTION IF EXISTS herald_hosted_messages_history() CASCADE',
    'DROP INDEX IF EXISTS deliveries_failed_by_update',
    'DROP TABLE IF EXISTS delivery_day_rollup',
    'DROP TABLE IF EXISTS send_day_rollup',
    'DROP TABLE IF EXISTS history_counters',
    'DROP TABLE IF EXISTS search_backfill',
    'DROP INDEX IF EXISTS sends_search',
    'DROP INDEX IF EXISTS hosted_messages_search',
  ]) {
    await qi.sequelize.query(sql);
  }
}
