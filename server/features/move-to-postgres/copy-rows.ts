import type BetterSqlite3 from 'better-sqlite3';
import type { Client } from 'pg';

import { MoveRefused, quoteIdent } from './move-refused';

/** PostgreSQL takes at most 65,535 parameters per statement; a batch stays well below. */
const MAX_PARAMS = 30_000;
const MAX_ROWS_PER_BATCH = 1_000;

export interface TargetColumn {
  name: string;
  /** information_schema's data_type: `boolean`, `json`, `timestamp with time zone`, … */
  type: string;
}

const q = (name: string) => quoteIdent(name);

export async function columnsOf(client: Client, table: string): Promise<TargetColumn[]> {
  const { rows } = await client.query<{ name: string; type: string }>(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return rows;
}

/**
 * Tables in an order where every row's foreign keys point at rows already copied: a table
 * comes after the tables it references (the target's constraints say which).
 */
export async function dependencyOrder(client: Client, tables: string[]): Promise<string[]> {
  const { rows } = await client.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent
     FROM pg_constraint k
     JOIN pg_class c ON c.oid = k.conrelid
     JOIN pg_class p ON p.oid = k.confrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE k.contype = 'f' AND n.nspname = current_schema()`,
  );
  const parents = new Map(tables.map((t) => [t, new Set<string>()]));
  for (const { child, parent } of rows) {
    if (child !== parent && parents.has(child) && parents.has(parent)) {
      parents.get(child)!.add(parent);
    }
  }
  const ordered: string[] = [];
  const placed = new Set<string>();
  while (ordered.length < tables.length) {
    const ready = tables.filter(
      (t) => !placed.has(t) && [...parents.get(t)!].every((p) => placed.has(p)),
    );
    if (ready.length === 0) throw new Error('the foreign keys form a cycle');
    for (const t of ready) {
      placed.add(t);
      ordered.push(t);
    }
  }
  return ordered;
}

/**
 * A SQLite value as the target column takes it. SQLite keeps booleans as 0/1, dates as text
 * (`2026-11-23 13:31:46.123 +00:00`, which PostgreSQL reads as it is) and JSON as text — or,
 * since a JSON column has numeric affinity there, a JSON number as a number.
 */
export function toTarget(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') value = value.toString();
  switch (type) {
    case 'boolean':
      return value === 1 || value === '1' || value === true || value === 'true';
    case 'json':
    case 'jsonb':
      if (typeof value !== 'string') return JSON.stringify(value);
      try {
        JSON.parse(value);
        return value;
      } catch {
        // Not JSON text: the string itself was the value.
        return JSON.stringify(value);
      }
    case 'timestamp with time zone':
    case 'timestamp without time zone':
    case 'date':
      return typeof value === 'number' ? new Date(value).toISOString() : value;
    case 'bytea':
      return Buffer.isBuffer(value) ? value : Buffer.from(String(value));
    default:
      return Buffer.isBuffer(value) ? value.toString('utf8') : value;
  }
}

/**
 * Copies one table in batches of multi-row INSERTs, ids included, in rowid order (keyset
 * paging, so a large table is never held in memory). Triggers on the target fire per
 * statement, as they do for Herald's own multi-row writes.
 */
export async function copyTable(
  source: BetterSqlite3.Database,
  client: Client,
  table: string,
  columns: TargetColumn[],
  onBatch: (copied: number) => void = () => undefined,
): Promise<number> {
  const sourceColumns = new Set(
    (
      source.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>
    ).map((c) => c.name),
  );
  const missing = columns.filter((c) => !sourceColumns.has(c.name)).map((c) => c.name);
  if (missing.length > 0) {
    throw new MoveRefused(`the source's ${table} has no column ${missing.join(', ')}`);
  }
  const extra = [...sourceColumns].filter((c) => !columns.some((t) => t.name === c));
  if (extra.length > 0) {
    throw new MoveRefused(`the target's ${table} has no column ${extra.join(', ')}`);
  }
  const perBatch = Math.max(
    1,
    Math.min(MAX_ROWS_PER_BATCH, Math.floor(MAX_PARAMS / columns.length)),
  );
  const select = source.prepare(
    `SELECT rowid AS "__rowid", ${columns.map((c) => `"${c.name}"`).join(', ')}
     FROM "${table}" WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  );
  const names = columns.map((c) => q(c.name)).join(', ');
  let after = Number.MIN_SAFE_INTEGER;
  let copied = 0;
  for (;;) {
    const rows = select.all(after, perBatch) as Array<Record<string, unknown>>;
    if (rows.length === 0) break;
    const params: unknown[] = [];
    const tuples = rows.map((row) => {
      const marks = columns.map((c) => {
        params.push(toTarget(row[c.name], c.type));
        return `$${params.length}`;
      });
      return `(${marks.join(', ')})`;
    });
    try {
      await client.query(`INSERT INTO ${q(table)} (${names}) VALUES ${tuples.join(', ')}`, params);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(`copying ${table} (rows after rowid ${after}): ${reason}`);
    }
    copied += rows.length;
    after = Number(rows[rows.length - 1].__rowid);
    onBatch(copied);
  }
  return copied;
}

/**
 * Sets every sequence of the table past the largest id it holds and past `floor` (SQLite's
 * AUTOINCREMENT high-water mark: an id once used, even by a deleted row, is not handed out again).
 */
export async function advanceSequences(
  client: Client,
  table: string,
  floor: number,
): Promise<void> {
  const { rows } = await client.query<{ column: string; sequence: string | null }>(
    `SELECT column_name AS column, pg_get_serial_sequence(quote_ident(table_name), column_name) AS sequence
     FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 AND column_default LIKE 'nextval(%'`,
    [table],
  );
  for (const { column, sequence } of rows) {
    if (!sequence) continue;
    await client.query(
      `SELECT setval($1, greatest((SELECT coalesce(max(${q(column)}), 0) FROM ${q(table)}), $2::bigint) + 1, false)`,
      [sequence, floor],
    );
  }
}

/** SQLite's AUTOINCREMENT high-water marks, by table (none where the table never had a row). */
export function autoincrementFloors(source: BetterSqlite3.Database): Map<string, number> {
  const exists = source
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'")
    .get();
  if (!exists) return new Map();
  const rows = source.prepare('SELECT name, seq FROM sqlite_sequence').all() as Array<{
    name: string;
    seq: number;
  }>;
  return new Map(rows.map((r) => [r.name, Number(r.seq)]));
}
