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
}

/** An executor over a node-sqlite3 connection. */
export function sqliteExecutor(db: sqlite3.Database): SqlExecutor {
  return {
    all: <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      new Promise<T[]>((resolve, reject) => {
        db.all(sql, params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows)));
      }),
    run: (sql, params = []) =>
      new Promise((resolve, reject) => {
        db.run(sql, params, function (this: sqlite3.RunResult, err: Error | null) {
          if (err) reject(err);
          else resolve({ changes: this.changes });
        });
      }),
    exec: (sql) =>
      new Promise<void>((resolve, reject) => {
        db.exec(sql, (err: Error | null) => (err ? reject(err) : resolve()));
      }),
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
