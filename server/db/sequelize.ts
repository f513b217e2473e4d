import { Sequelize, type Transaction } from 'sequelize';

import { createLogger } from '../lib/logger';

const log = createLogger('db');

interface SqliteConnection {
  configure(option: 'busyTimeout', ms: number): void;
  run(sql: string): void;
}

/**
 * Opens the SQLite database in WAL mode.
 *
 * Sequelize's sqlite dialect opens a fresh connection per transaction and offers no
 * afterConnect hook, so the busy timeout and pragmas are applied by wrapping getConnection;
 * without it a reader racing a transaction gets SQLITE_BUSY at once.
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
    getConnection(options?: unknown): Promise<SqliteConnection>;
  };
  const original = manager.getConnection.bind(manager);
  const configured = new WeakSet<SqliteConnection>();
  manager.getConnection = async (options?: unknown) => {
    const connection = await original(options);
    if (!configured.has(connection)) {
      configured.add(connection);
      connection.configure('busyTimeout', 10_000);
      connection.run('PRAGMA synchronous=NORMAL');
    }
    return connection;
  };
  await sequelize.query('PRAGMA journal_mode=WAL');
  return sequelize;
}

/**
 * Serialises write transactions inside this process. SQLite allows one writer at a time;
 * queueing here is cheaper than letting transactions collide and wait on the busy timeout.
 */
export class WriteLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
