import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

import { likePattern, planSearch } from '../history/search-plan';
import { SEARCH_TEXT } from './search-text';

/**
 * The PostgreSQL side of server/db/history: what SQLite answers with FTS5, pragmas and
 * `changes()`, answered with pg_trgm, the catalog and row counts.
 */

export const onPostgres = (sequelize: Sequelize): boolean => sequelize.getDialect() === 'postgres';

type SearchTable = keyof typeof SEARCH_TEXT;

const COLUMNS: Record<SearchTable, string[]> = {
  hosted_messages: ['title', 'content'],
  sends: ['title', 'text', 'html', 'markdown'],
};

/**
 * The rows of `table` (as `b`) holding `q` as a substring, ignoring case. One ILIKE on the
 * indexed text (search-text.ts), which the table's `gin_trgm_ops` index answers for queries
 * of 3 characters or more; shorter ones read the whole index instead of the table (pg_trgm
 * pads words with blanks, so 1–2 character queries still match, checked row by row). A query
 * with control characters is matched column by column, as SQLite scans it: chr(1) joins the
 * columns in the indexed text and must not be matched across.
 */
export function searchCondition(
  table: SearchTable,
  q: string,
): { sql: string; params: Record<string, unknown> } {
  const like = likePattern(q);
  if (planSearch(q).kind === 'scan' && /\p{Cc}/u.test(q)) {
    const clauses = COLUMNS[table].map((c) => `b.${c} ILIKE :like ESCAPE '\\'`);
    return { sql: `(${clauses.join(' OR ')})`, params: { like } };
  }
  return { sql: `${SEARCH_TEXT[table]('b')} ILIKE :like ESCAPE '\\'`, params: { like } };
}

/** Rows a DELETE removed: Sequelize's bulk-delete answer is pg's row count. */
export async function deleteCounting(
  sequelize: Sequelize,
  sql: string,
  replacements: Record<string, unknown>,
  transaction: Transaction,
): Promise<number> {
  const n = await sequelize.query(sql, {
    type: QueryTypes.BULKDELETE,
    replacements,
    transaction,
  });
  return Number(n);
}

/** What the Settings page shows about a PostgreSQL database, in DatabaseInfo's terms. */
export async function postgresStorage(sequelize: Sequelize) {
  const [row] = await sequelize.query<{ name: string; bytes: number; block: number }>(
    `SELECT current_database() AS name, pg_database_size(current_database()) AS bytes,
            current_setting('block_size')::integer AS block`,
    { type: QueryTypes.SELECT },
  );
  const bytes = Number(row?.bytes ?? 0);
  const block = Number(row?.block ?? 8192);
  return {
    file: `PostgreSQL database ${row?.name ?? ''}`,
    sizeBytes: bytes,
    dbBytes: bytes,
    // The server's write-ahead log is shared by all its databases: none of it is this one's.
    walBytes: 0,
    pageSize: block,
    pageCount: Math.ceil(bytes / block),
    // Autovacuum marks dead rows' space for reuse by itself; there is no free list to show.
    freePages: 0,
    autoVacuum: 'none' as const,
  };
}

/**
 * Folds the deltas the history triggers appended (history-index-schema.ts) into one row per
 * key, dropping keys that sum to zero. One statement per table: rows committed after it
 * started are not seen, so not deleted, and a second run at the same time skips the rows the
 * first one deletes; sums are the same before and after, whoever reads meanwhile.
 */
export async function compactHistoryTotals(
  sequelize: Sequelize,
  transaction: Transaction,
): Promise<void> {
  const tables: Array<[string, string]> = [
    ['history_counters', 'name'],
    ['send_day_rollup', 'day, api, task_id, template_id, source_name, status'],
    ['delivery_day_rollup', 'day, channel_id, status'],
  ];
  for (const [table, keys] of tables) {
    await sequelize.query(
      `WITH gone AS (DELETE FROM ${table} RETURNING ${keys}, n)
       INSERT INTO ${table} (${keys}, n)
       SELECT ${keys}, sum(n) FROM gone GROUP BY ${keys}
       HAVING sum(n) <> 0 OR ${table === 'history_counters' ? 'true' : 'false'}`,
      { transaction },
    );
  }
}
