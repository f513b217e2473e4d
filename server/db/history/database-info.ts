import { statSync } from 'node:fs';

import { QueryTypes, type Sequelize } from 'sequelize';

import { onPostgres, postgresStorage } from '../postgres/history-postgres';
import { pragma } from './retention';
import { pendingUntil } from './search-backfill';

export interface DatabaseInfo {
  file: string;
  /** The database file plus its write-ahead log, in bytes. */
  sizeBytes: number;
  dbBytes: number;
  walBytes: number;
  pageSize: number;
  pageCount: number;
  /** Pages freed by deletes, reused by later writes (or returned, see autoVacuum). */
  freePages: number;
  autoVacuum: 'none' | 'full' | 'incremental';
  rows: { sends: number; deliveries: number; attempts: number; hostedMessages: number };
  /** Rows not in the search index yet (0 once done): older rows being backfilled and, on SQLite, new sends waiting for the indexer. */
  searchIndexPending: number;
}

const AUTO_VACUUM = ['none', 'full', 'incremental'] as const;

const sizeOf = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** What the Settings page shows about the database: its size on disk and how many rows it holds. */
export async function databaseInfo(sequelize: Sequelize): Promise<DatabaseInfo> {
  const select = <T extends object>(sql: string) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT });
  const counters = new Map(
    (
      await select<{ name: string; n: number }>(
        'SELECT name, sum(n) AS n FROM history_counters GROUP BY name',
      )
    ).map((r) => [r.name, Number(r.n)]),
  );
  // Deliveries and attempts have no counter: counting them reads an index, once per page view.
  const [counts] = await select<{ deliveries: number; attempts: number }>(
    `SELECT (SELECT count(*) FROM deliveries) AS deliveries,
            (SELECT count(*) FROM delivery_attempts) AS attempts`,
  );
  const [pending] = await select<{ n: number }>(
    `SELECT coalesce(sum(${onPostgres(sequelize) ? 'greatest' : 'max'}(
       CASE b.source WHEN 'sends' THEN ${pendingUntil(sequelize, 'sends')}
         ELSE ${pendingUntil(sequelize, 'hosted_messages')} END - done, 0)), 0) AS n
     FROM search_backfill b`,
  );
  const rows = {
    sends: counters.get('sends') ?? 0,
    deliveries: Number(counts?.deliveries ?? 0),
    attempts: Number(counts?.attempts ?? 0),
    hostedMessages: counters.get('hosted_messages') ?? 0,
  };
  const searchIndexPending = Number(pending?.n ?? 0);
  if (onPostgres(sequelize)) {
    return { ...(await postgresStorage(sequelize)), rows, searchIndexPending };
  }
  const [main] = await select<{ file: string }>(
    "SELECT file FROM pragma_database_list WHERE name = 'main'",
  );
  const file = main?.file ?? '';
  const dbBytes = sizeOf(file);
  const walBytes = sizeOf(`${file}-wal`);
  return {
    file,
    sizeBytes: dbBytes + walBytes,
    dbBytes,
    walBytes,
    pageSize: await pragma(sequelize, 'page_size'),
    pageCount: await pragma(sequelize, 'page_count'),
    freePages: await pragma(sequelize, 'freelist_count'),
    autoVacuum: AUTO_VACUUM[await pragma(sequelize, 'auto_vacuum')] ?? 'none',
    rows,
    searchIndexPending,
  };
}
