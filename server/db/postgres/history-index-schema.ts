import type { QueryInterface } from 'sequelize';

import {
  DROP_HISTORY_TABLES,
  deliveryKey,
  historyTables,
  sendKey,
  type HistoryTablesDialect,
} from '../history/history-tables';
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
/**
 * PostgreSQL's side of the tables both dialects share (history-tables.ts): no key, since a
 * key's total is the sum of its delta rows, and an index on what readers look a total up by.
 */
const POSTGRES_TABLES: HistoryTablesDialect = {
  count: 'BIGINT',
  day: (alias) => `to_char(${alias}.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  // CREATE INDEX below indexes the rows already there: the backfill has nothing to do.
  backfillUntil: () => '0',
  keyed: (table, columns, keys, lookup) => [
    `CREATE TABLE ${table} (${columns})`,
    `CREATE INDEX ${table}_${lookup} ON ${table} (${lookup})`,
  ],
};

const SEND_KEY = (a: string) => sendKey(POSTGRES_TABLES, a);
const DELIVERY_KEY = (a: string) => deliveryKey(POSTGRES_TABLES, a);

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

/** The deliveries' roll-up function; migration 2026-11-28-1100 replaces it with this text. */
export const POSTGRES_DELIVERIES_HISTORY = `CREATE OR REPLACE FUNCTION herald_deliveries_history() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       ${appendDeltas('delivery_day_rollup', DELIVERY_KEYS, deliveriesPlus)}
     ELSIF TG_OP = 'DELETE' THEN
       ${appendDeltas('delivery_day_rollup', DELIVERY_KEYS, deliveriesMinus)}
     ELSE
       ${appendDeltas('delivery_day_rollup', DELIVERY_KEYS, `${deliveriesPlus} UNION ALL ${deliveriesMinus}`)}
     END IF;
     RETURN NULL;
   END $$`;

// Each branch names only the transition tables its event has: PL/pgSQL plans a statement
// when it first runs, so the others are never looked at.
const statements = [
  'CREATE EXTENSION IF NOT EXISTS pg_trgm',
  `CREATE INDEX hosted_messages_search ON hosted_messages
     USING gin (${indexedText('hosted_messages')} gin_trgm_ops)`,
  `CREATE INDEX sends_search ON sends USING gin (${indexedText('sends')} gin_trgm_ops)`,

  ...historyTables(POSTGRES_TABLES),

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
  POSTGRES_DELIVERIES_HISTORY,
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
    ...DROP_HISTORY_TABLES,
    'DROP INDEX IF EXISTS sends_search',
    'DROP INDEX IF EXISTS hosted_messages_search',
  ]) {
    await qi.sequelize.query(sql);
  }
}
