import { Sequelize, type Transaction } from 'sequelize';

import { createLogger } from '../lib/logger';

const log = createLogger('db');

interface SqliteConnection {
  configure(option: 'busyTimeout', ms: number): void;
  run(sql: string): void;
}

/**
 * Opens the SQLite database in WAL mode, on one shared connection.
 *
 * Sequelize's sqlite dialect opens a fresh connection for every transaction, and each new
 * connection re-reads the schema on its first statement: about 8 ms per send instead of
 * 0.5 ms. Herald serialises every write transaction through one WriteLock, so transactions can
 * run on the shared connection; getConnection is wrapped to hand it out and releaseConnection
 * to keep it open. The wrapper also applies the busy timeout and pragmas, for which the
 * dialect offers no afterConnect hook.
 */
export async function createSequelize(dbFile: string): Promise<Sequelize> {
  const sequelize = new Sequelize({
    dialect: 'sqlite',
    storage: dbFile,
    logging: process.env.HERALD_LOG_SQL ? (sql) => log.debug(sql) : false,
    transactionType: 'IMMEDIATE' as Transaction.TYPES,
    define: { underscored: true },
  });
  const manager = sequelize.connectionManager as unknown as {
    getConnection(options?: { uuid?: string }): Promise<SqliteConnection>;
    releaseConnection(connection: SqliteConnection, force?: boolean): void;
  };
  const original = manager.getConnection.bind(manager);
  let shared: SqliteConnection | null = null;
  manager.getConnection = async (options?: { uuid?: string }) => {
    if (shared) return shared;
    const connection = await original({ ...(options ?? {}), uuid: 'default' });
    connection.configure('busyTimeout', 10_000);
    connection.run('PRAGMA synchronous=NORMAL');
    shared = connection;
    return connection;
  };
  const release = manager.releaseConnection.bind(manager);
  manager.releaseConnection = (connection, force) => {
    // The shared connection outlives transactions; sequelize.close() still closes it.
    if (connection === shared && !force) return;
    release(connection, force);
  };
  await sequelize.query('PRAGMA journal_mode=WAL');
  return sequelize;
}

/**
 * Serialises write transactions inside this process. SQLite allows one writer at a time, and
 * transactions share one connection (see createSequelize): every transaction and every write
 * must run inside `run`.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
