import { at, idsIn, json } from './postgres/json-params';
import { sqliteDate, type SqlExecutor } from './sql';

/**
 * Where a statement's text differs between SQLite and PostgreSQL, as small fragments, so that
 * each statement of the hot path (server/queue/store/hot-path.ts, hosted-messages.ts) is
 * written once. Sets of rows travel as one JSON array parameter whatever the dialect.
 */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /** Parameter n: `?n` or `$n`. */
  param(n: number): string;
  /** Parameter n, a timestamp passed as `date(ms)`. */
  dateParam(n: number): string;
  /**
   * The elements of JSON array parameter n, as rows: each element is `value`, its position
   * `key` (ORDER BY key keeps the order given).
   */
  rows(n: number): string;
  /** The numbers of JSON array parameter n, as a set for `IN`. */
  ids(n: number): string;
  /** Field `name` of the row `value`, as the type of the column it is written to or read as. */
  field(name: string, type?: FieldType): string;
  /** How many rows of a group match `condition`. */
  countWhere(condition: string): string;
  /** A column tested without its index: SQLite's unary `+` (PostgreSQL's planner needs no hint). */
  unindexed(column: string): string;
  /** A json column read as its text, under its own name. */
  jsonText(column: string): string;
  /** A JSON array or object parameter. */
  json(value: unknown): string;
  /** A timestamp parameter (or a timestamp inside a JSON parameter). */
  date(ms: number): string;
}

/** PostgreSQL's casts; SQLite's `->>` gives the stored value, whatever its type. */
export type FieldType = 'text' | 'integer' | 'bigint' | 'json' | 'timestamptz';

const SQLITE: SqlDialect = {
  name: 'sqlite',
  param: (n) => `?${n}`,
  dateParam: (n) => `?${n}`,
  // jsonb_each hands each element over as JSONB, which `->>` reads without parsing it again:
  // json_each renders each element as text and every field read parsed it anew (an INSERT of
  // a cycle's deliveries took 16 µs a row that way, 9.5 µs this way; README, Performance).
  rows: (n) => `jsonb_each(?${n})`,
  ids: (n) => `(SELECT value FROM json_each(?${n}))`,
  field: (name) => `value ->> '${name}'`,
  countWhere: (condition) => `SUM(${condition})`,
  unindexed: (column) => `+${column}`,
  jsonText: (column) => column,
  json: (value) => JSON.stringify(value),
  date: sqliteDate,
};

const POSTGRES: SqlDialect = {
  name: 'postgres',
  param: (n) => `$${n}`,
  dateParam: (n) => `$${n}::timestamptz`,
  rows: (n) => `jsonb_array_elements($${n}::jsonb) WITH ORDINALITY AS e(value, key)`,
  ids: (n) => idsIn(`$${n}`),
  field: (name, type = 'text') =>
    type === 'text'
      ? `value ->> '${name}'`
      : type === 'json'
        ? `(value -> '${name}')::json`
        : `(value ->> '${name}')::${type}`,
  countWhere: (condition) => `count(*) FILTER (WHERE ${condition})`,
  unindexed: (column) => column,
  jsonText: (column) => `${column}::text AS ${column}`,
  json,
  date: at,
};

export const DIALECTS = { sqlite: SQLITE, postgres: POSTGRES } as const;

/** The dialect an executor speaks (unset is SQLite). */
export const dialectOf = (sql: SqlExecutor): SqlDialect => DIALECTS[sql.dialect ?? 'sqlite'];

/**
 * Something built from the fragments once per dialect, when the module loads: statement texts
 * stay fixed, so each is prepared once per connection (sql.ts, pg-executor.ts).
 */
export function perDialect<T>(build: (d: SqlDialect) => T): Record<SqlDialect['name'], T> {
  return { sqlite: build(SQLITE), postgres: build(POSTGRES) };
}
