import type BetterSqlite3 from 'better-sqlite3';
import type { Client } from 'pg';

import {
  advanceSequences,
  autoincrementFloors,
  columnsOf,
  copyTable,
  dependencyOrder,
} from './copy-rows';
import { rowProgress } from '../../lib/progress';
import { MoveRefused } from './move-refused';
import { openSourceSnapshot } from './source-folder';
import {
  DERIVED_TABLES,
  checkPostgresUrl,
  connectTarget,
  migrateTarget,
  refuseUnlessEmpty,
  tablesOf,
} from './target-database';

export interface TableCount {
  table: string;
  source: number;
  target: number;
}

export interface MoveReport {
  dataDir: string;
  tables: TableCount[];
  /** Source tables with no counterpart on PostgreSQL, other than SQLite's full-text index. */
  notCopied: string[];
  /** Whether the target's dashboard roll-ups, built by its triggers, equal the source's. */
  rollupsMatchSource: boolean;
}

const countIn = (source: BetterSqlite3.Database, table: string) =>
  Number((source.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n);

async function countOn(client: Client, table: string): Promise<number> {
  const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`);
  return Number(rows[0].n);
}

export interface MoveProgress {
  /** Each line of progress: the steps, and rows done of each table's total. */
  write(line: string): void;
  /** For tests: the clock and interval that throttle the row lines (lib/progress.ts). */
  now?: () => number;
  intervalMs?: number;
}

/**
 * Copies a stopped SQLite install into an empty PostgreSQL database: the target's schema from
 * Herald's own migrations, then every table's rows with their ids in one transaction, the
 * sequences moved past them, and the counts checked before it commits. Nothing is written to
 * the data folder.
 */
export async function moveToPostgres(
  dataDir: string,
  url: string,
  progress: MoveProgress = { write: () => undefined },
): Promise<MoveReport> {
  checkPostgresUrl(url);
  const source = openSourceSnapshot(dataDir);
  try {
    let client = await connectTarget(url);
    try {
      await refuseUnlessEmpty(client, url);
    } finally {
      await client.end();
    }
    progress.write('creating the schema (Herald’s migrations)');
    await migrateTarget(url);
    client = await connectTarget(url);
    try {
      return await copyAll(source.db, client, dataDir, progress);
    } finally {
      await client.end();
    }
  } finally {
    source.close();
  }
}

async function copyAll(
  source: BetterSqlite3.Database,
  client: Client,
  dataDir: string,
  progress: MoveProgress,
): Promise<MoveReport> {
  const sourceTables = (
    source
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as Array<{ name: string }>
  ).map((r) => r.name);
  const targetTables = (await tablesOf(client)).filter((t) => !DERIVED_TABLES.has(t));
  const missing = targetTables.filter((t) => !sourceTables.includes(t));
  if (missing.length > 0) {
    throw new MoveRefused(`the source has no table ${missing.join(', ')}, which this Herald has`);
  }
  // SQLite's FTS5 tables and their shadow tables: PostgreSQL indexes the rows itself.
  const notCopied = sourceTables.filter(
    (t) => !targetTables.includes(t) && !DERIVED_TABLES.has(t) && !/_fts(_\w+)?$/.test(t),
  );
  const order = await dependencyOrder(client, targetTables);
  const floors = autoincrementFloors(source);
  const tables: TableCount[] = [];

  // Counted before the copy, so each table's progress has its total; the source is a private
  // snapshot, so the counts hold until the end and are the ones checked against PostgreSQL.
  const totals = new Map(order.map((table) => [table, countIn(source, table)]));
  const rows = rowProgress(progress);

  await client.query('BEGIN');
  try {
    for (const table of order) {
      const columns = await columnsOf(client, table);
      const total = totals.get(table)!;
      const meter = rows.table(table, total);
      const copied = await copyTable(source, client, table, columns, (n) => meter.advance(n));
      meter.finish(copied);
      await advanceSequences(client, table, floors.get(table) ?? 0);
      const count = { table, source: total, target: await countOn(client, table) };
      if (count.target !== count.source || copied !== count.source) {
        throw new MoveRefused(
          `${table}: ${count.source} rows in the source, ${count.target} on PostgreSQL after the copy; nothing was committed`,
        );
      }
      tables.push(count);
    }
    rows.done();
    progress.write('checking the counters and roll-ups, then committing');
    await checkDerived(client);
    const rollupsMatchSource = await sameRollups(source, client);
    await client.query('COMMIT');
    // Fresh statistics, so the planner picks the search indexes from the first query on.
    await client.query('ANALYZE');
    return { dataDir, tables, notCopied, rollupsMatchSource };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * The counters and roll-ups are kept by statement-level triggers, which fired for every batch;
 * before committing, they must agree with the rows themselves.
 */
async function checkDerived(client: Client): Promise<void> {
  // Summed by key: PostgreSQL may keep a counter or roll-up as appended deltas, several rows a key.
  const { rows } = await client.query<{ name: string; kept: string; actual: string }>(
    `SELECT c.name, c.kept, CASE c.name
         WHEN 'sends' THEN (SELECT count(*) FROM sends)
         WHEN 'hosted_messages' THEN (SELECT count(*) FROM hosted_messages)
         WHEN 'hosted_messages_unread' THEN (SELECT count(*) FROM hosted_messages WHERE read_at IS NULL)
       END AS actual
     FROM (SELECT name, sum(n) AS kept FROM history_counters GROUP BY name) c
     UNION ALL
     SELECT 'send_day_rollup', (SELECT coalesce(sum(n), 0) FROM send_day_rollup), (SELECT count(*) FROM sends)
     UNION ALL
     SELECT 'delivery_day_rollup', (SELECT coalesce(sum(n), 0) FROM delivery_day_rollup), (SELECT count(*) FROM deliveries)`,
  );
  const off = rows.filter((r) => r.actual !== null && Number(r.kept) !== Number(r.actual));
  if (off.length > 0) {
    throw new Error(
      `the history counters disagree with the copied rows (${off
        .map((r) => `${r.name}: ${r.kept} kept, ${r.actual} rows`)
        .join('; ')}); nothing was committed`,
    );
  }
}

/** The dashboard's daily roll-ups on both sides, as comparable lines. */
async function sameRollups(source: BetterSqlite3.Database, client: Client): Promise<boolean> {
  const sendKeys = 'day, api, task_id, template_id, source_name, status';
  const queries = [
    `SELECT ${sendKeys}, sum(n) AS n FROM send_day_rollup GROUP BY ${sendKeys} HAVING sum(n) <> 0`,
    `SELECT day, channel_id, status, sum(n) AS n FROM delivery_day_rollup
     GROUP BY day, channel_id, status HAVING sum(n) <> 0`,
  ];
  const lines = (rows: Array<Record<string, unknown>>) =>
    // pg reads bigint counts as strings, SQLite as numbers: compared as text.
    rows.map((r) => Object.values(r).map(String).join('|')).sort();
  for (const sql of queries) {
    const a = lines(source.prepare(sql).all() as Array<Record<string, unknown>>);
    const b = lines((await client.query(sql)).rows as Array<Record<string, unknown>>);
    if (a.join('\n') !== b.join('\n')) return false;
  }
  return true;
}
