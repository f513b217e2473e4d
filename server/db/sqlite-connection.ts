import type BetterSqlite3 from 'better-sqlite3';

import type { SqlExecutor, SqlRow, SqlValue } from './sql';
import { betterSqlite3 } from './better-sqlite3';

/**
 * Herald's connections to its SQLite file, on better-sqlite3: a statement runs to completion in
 * the calling turn of the event loop. On node-sqlite3 every statement of a write cycle was a
 * round trip to its worker thread, and under load each round trip waited for a turn of the
 * busy event loop, so the writer idled while requests queued (issue 8's profile: 37 % idle).
 * A write cycle of a few hundred rows takes about a millisecond of CPU, so running it
 * synchronously costs the loop less than those turns did. Reads run here too (database.ts
 * says why both connections must be on one driver); a console search over a million rows
 * takes tens of milliseconds of the loop (npm run bench -- --history).
 *
 * Sequelize's sqlite dialect only knows node-sqlite3's callback API; `CallbackConnection` speaks
 * the part of it that the dialect uses (`serialize`, `all`, `run`, `exec`, `close`) over a
 * better-sqlite3 handle, so the models' writes and the hot path's statements share the one
 * write connection and the Writer's transaction.
 */

type Params = unknown[] | Record<string, unknown> | undefined;
type Callback = (
  this: { lastID: number; changes: number },
  err: Error | null,
  rows?: unknown[],
) => void;

/** The hot path's texts are fixed and the models' few; a bound keeps ad-hoc SQL from piling up. */
const MAX_CACHED_STATEMENTS = 256;

/** better-sqlite3 binds only numbers, strings, bigints, buffers and null; node-sqlite3 more. */
function bindable(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  return value;
}

/**
 * node-sqlite3 binds an array to `?1`/`$1 …` by position and an object by its keys with their
 * prefix (`{ $name: … }`); better-sqlite3 wants an object keyed without the prefix for any
 * numbered or named parameter.
 */
function bindings(sql: string, params: Params): unknown[] | Record<string, unknown> {
  if (params === undefined) return [];
  if (Array.isArray(params)) {
    const values = params.map(bindable);
    if (values.length === 0 || !/[?$]\d/.test(sql)) return values;
    const named: Record<string, unknown> = {};
    values.forEach((v, i) => (named[String(i + 1)] = v));
    return named;
  }
  const named: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(params)) named[key.replace(/^[$:@]/, '')] = bindable(v);
  return named;
}

/**
 * node-sqlite3 reports the primary result code (`SQLITE_CONSTRAINT`) with the code in the
 * message; better-sqlite3 the extended one. Sequelize maps both, and Herald's own checks read
 * the message, so the message gets node-sqlite3's prefix.
 */
function asSqliteError(err: unknown): Error {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') {
    if (!err.message.startsWith(err.code)) err.message = `${err.code}: ${err.message}`;
  }
  return err as Error;
}

export class SqliteConnection {
  readonly db: BetterSqlite3.Database;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(
    readonly filename: string,
    busyTimeoutMs: number,
    options: { readonly?: boolean } = {},
  ) {
    // Read-only: a write routed to the read connection fails loudly instead of escaping the
    // Writer.
    this.db = new (betterSqlite3())(filename, {
      timeout: busyTimeoutMs,
      readonly: options.readonly ?? false,
    });
  }

  /** A cached prepared statement; past the cap, statements are prepared per use. */
  prepare(sql: string): BetterSqlite3.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (this.statements.size < MAX_CACHED_STATEMENTS) this.statements.set(sql, stmt);
    }
    return stmt;
  }

  allSync<T>(sql: string, params: Params): T[] {
    const stmt = this.prepare(sql);
    const bound = bindings(sql, params);
    if (stmt.reader) return stmt.all(bound) as T[];
    this.runToCompletion(stmt, sql, bound);
    return [];
  }

  /**
   * better-sqlite3's run() steps a statement once. That finishes every statement but a
   * pragma that works step by step (`incremental_vacuum` frees one page per step), which
   * node-sqlite3 stepped to the end; exec does too.
   */
  private runToCompletion(stmt: BetterSqlite3.Statement, sql: string, bound: unknown) {
    if (/^\s*PRAGMA/i.test(sql)) {
      this.db.exec(sql);
      return { changes: 0, lastInsertRowid: 0 };
    }
    return stmt.run(bound);
  }

  runSync(sql: string, params: Params): { changes: number; lastID: number } {
    const stmt = this.prepare(sql);
    const bound = bindings(sql, params);
    if (stmt.reader) {
      // `INSERT … RETURNING` through run(): node-sqlite3 runs it and drops the rows.
      const rows = stmt.all(bound);
      return { changes: rows.length, lastID: Number(this.lastInsertRowid()) };
    }
    const info = this.runToCompletion(stmt, sql, bound);
    return { changes: info.changes, lastID: Number(info.lastInsertRowid) };
  }

  private lastInsertRowid(): number | bigint {
    return (this.prepare('SELECT last_insert_rowid() AS id').get() as { id: number }).id;
  }

  close(): void {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }
}

/** The hot path's executor over a connection; every call has finished when it returns. */
export function connectionExecutor(conn: SqliteConnection): SqlExecutor {
  const settle = <T>(work: () => T): Promise<T> => {
    try {
      return Promise.resolve(work());
    } catch (err) {
      return Promise.reject(asSqliteError(err));
    }
  };
  return {
    all: <T extends SqlRow>(sql: string, params: SqlValue[] = []) =>
      settle(() => conn.allSync<T>(sql, params)),
    run: (sql, params = []) => settle(() => ({ changes: conn.runSync(sql, params).changes })),
    exec: (sql) => settle(() => void conn.db.exec(sql)),
  };
}

/**
 * node-sqlite3's `Database`, as far as Sequelize's sqlite dialect uses it. Callbacks are
 * called on the next tick, as node-sqlite3 calls them, so no caller sees a callback run
 * before the call that asked for it returned.
 */
export class CallbackConnection {
  constructor(
    private readonly conn: SqliteConnection,
    readonly uuid: string,
  ) {}

  get filename(): string {
    return this.conn.filename;
  }

  serialize(fn: () => void): void {
    fn();
  }

  all(sql: string, params: Params | Callback, callback?: Callback): void {
    const cb = (typeof params === 'function' ? params : callback) as Callback;
    const args = typeof params === 'function' ? undefined : params;
    this.call(
      cb,
      () => ({ rows: this.conn.allSync(sql, args), meta: { lastID: 0, changes: 0 } }),
      sql,
      args,
    );
  }

  run(sql: string, params?: Params | Callback, callback?: Callback): void {
    const cb = (typeof params === 'function' ? params : callback) as Callback | undefined;
    const args = typeof params === 'function' ? undefined : params;
    this.call(cb, () => ({ rows: undefined, meta: this.conn.runSync(sql, args) }), sql, args);
  }

  exec(sql: string, callback?: (err: Error | null) => void): void {
    let error: Error | null = null;
    try {
      this.conn.db.exec(sql);
    } catch (err) {
      error = asSqliteError(err);
    }
    if (callback) process.nextTick(() => callback(error));
  }

  close(callback?: (err: Error | null) => void): void {
    this.conn.close();
    if (callback) process.nextTick(() => callback(null));
  }

  private call(
    cb: Callback | undefined,
    work: () => { rows: unknown[] | undefined; meta: { lastID: number; changes: number } },
    sql: string,
    args: Params,
  ): void {
    let result: ReturnType<typeof work> | undefined;
    let error: Error | null = null;
    try {
      result = work();
    } catch (err) {
      // A text of several statements (a migration's raw SQL) cannot be prepared as one;
      // node-sqlite3 would have run the first only, exec runs them all.
      const multiple = err instanceof RangeError && /more than one statement/.test(err.message);
      if (multiple && (args === undefined || (Array.isArray(args) && args.length === 0))) {
        try {
          this.conn.db.exec(sql);
          result = { rows: [], meta: { lastID: 0, changes: 0 } };
        } catch (execErr) {
          error = asSqliteError(execErr);
        }
      } else error = asSqliteError(err);
    }
    if (!cb) return;
    const meta = result?.meta ?? { lastID: 0, changes: 0 };
    process.nextTick(() => cb.call(meta, error, result?.rows));
  }
}
