import type sqlite3 from 'sqlite3';

export type SqlValue = string | number | bigint | null;
export type SqlRow = Record<string, unknown>;

/**
 * Parameterised statements on one connection, with no ORM in between: the shape the hot-path
 * module is written against, so a PostgreSQL twin only has to provide the same three calls.
 */
export interface SqlExecutor {
  all<T extends SqlRow = SqlRow>(sql: string, params?: SqlValue[]): Promise<T[]>;
  run(sql: string, params?: SqlValue[]): Promise<{ changes: number }>;
  exec(sql: string): Promise<void>;
  /** Which SQL it speaks; unset is SQLite. The hot path picks its statements by it. */
  readonly dialect?: 'sqlite' | 'postgres';
}

/** The hot path's statement texts are fixed, so their prepared statements are kept. */
const MAX_CACHED_STATEMENTS = 64;

/** An executor over a node-sqlite3 connection, with its prepared statements cached. */
export function sqliteExecutor(db: sqlite3.Database): SqlExecutor & { close(): Promise<void> } {
  const cache = new Map<string, Promise<sqlite3.Statement>>();
  const prepare = (sql: string) =>
    new Promise<sqlite3.Statement>((resolve, reject) => {
      const stmt: sqlite3.Statement = db.prepare(sql, (err: Error | null) =>
        err ? reject(err) : resolve(stmt),
      );
    });
  /** Runs `op` on the statement for `sql`: cached, or finalized after use past the cap. */
  const use = async <T>(sql: string, op: (stmt: sqlite3.Statement) => Promise<T>) => {
    let stmt = cache.get(sql);
    let keep = true;
    if (!stmt) {
      stmt = prepare(sql);
      keep = cache.size < MAX_CACHED_STATEMENTS;
      if (keep) {
        cache.set(sql, stmt);
        // A statement that does not prepare is not kept: the error goes to the caller.
        stmt.catch(() => cache.delete(sql));
      }
    }
    const prepared = await stmt;
    try {
      return await op(prepared);
    } finally {
      if (!keep) prepared.finalize();
    }
  };
  return {
    all: <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      use(
        sql,
        (stmt) =>
          new Promise<T[]>((resolve, reject) => {
            stmt.all(params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows)));
          }),
      ),
    run: (sql, params = []) =>
      use(
        sql,
        (stmt) =>
          new Promise<{ changes: number }>((resolve, reject) => {
            stmt.run(params, function (this: sqlite3.RunResult, err: Error | null) {
              if (err) reject(err);
              else resolve({ changes: this.changes });
            });
          }),
      ),
    exec: (sql) =>
      new Promise<void>((resolve, reject) => {
        db.exec(sql, (err: Error | null) => (err ? reject(err) : resolve()));
      }),
    async close() {
      const statements = await Promise.allSettled([...cache.values()]);
      cache.clear();
      await Promise.all(
        statements.map((s) =>
          s.status === 'fulfilled'
            ? new Promise<void>((r) => s.value.finalize(() => r()))
            : undefined,
        ),
      );
    },
  };
}

/**
 * A timestamp exactly as Sequelize's sqlite dialect stores a DATE ('2026-11-22 12:00:00.000
 * +00:00'), so rows the hot path writes read back through the models and sort with the rest.
 */
export function sqliteDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)} +00:00`;
}
