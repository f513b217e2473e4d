import type { Pool, PoolClient } from 'pg';

import type { SqlExecutor, SqlRow, SqlValue } from '../sql';

/** What both a pg Pool and one of its clients offer: `query` with a named statement. */
type Queryable = Pick<Pool, 'query'> | Pick<PoolClient, 'query'>;

/**
 * The hot path's texts are fixed: each gets a statement name, so pg prepares it once per
 * connection and afterwards sends only the name and the values. The bound keeps ad-hoc SQL
 * (texts built per call) from piling up prepared statements on the server.
 */
const MAX_NAMED_STATEMENTS = 256;
const names = new Map<string, string>();

function statementName(sql: string): string | undefined {
  let name = names.get(sql);
  if (name === undefined && names.size < MAX_NAMED_STATEMENTS) {
    name = `herald_${names.size + 1}`;
    names.set(sql, name);
  }
  return name;
}

/**
 * The Writer opens its cycles with SQLite's `BEGIN IMMEDIATE` (take the write lock now).
 * PostgreSQL has no database-wide write lock to take: each statement locks the rows it
 * writes, and a plain `BEGIN` is the same transaction otherwise.
 */
function translate(sql: string): string {
  return sql.trim() === 'BEGIN IMMEDIATE' ? 'BEGIN' : sql;
}

/** A SqlExecutor on pg: `$1` parameters, statements named for reuse. */
export function pgExecutor(target: Queryable): SqlExecutor {
  const query = async (sql: string, params: SqlValue[]) => {
    const values = params.map((v) => (typeof v === 'bigint' ? v.toString() : v));
    const name = values.length > 0 ? statementName(sql) : undefined;
    return target.query(name ? { name, text: sql, values } : { text: sql, values });
  };
  return {
    dialect: 'postgres',
    all: async <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      (await query(sql, params)).rows as T[],
    run: async (sql, params = []) => ({ changes: (await query(sql, params)).rowCount ?? 0 }),
    exec: async (sql) => {
      await target.query(translate(sql));
    },
  };
}
