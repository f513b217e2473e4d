import { isMainThread } from 'node:worker_threads';
import { QueryTypes, Sequelize, Transaction } from 'sequelize';
import sqlite3 from 'sqlite3';

import { createLogger } from '../lib/logger';
import { sqliteTempDirProblem } from './sqlite-temp-dir';
import { sqliteExecutor, type SqlExecutor } from './sql';
import { connectionExecutor, CallbackConnection, SqliteConnection } from './sqlite-connection';
import { writeWorkerMode, type WriteWorkerMode } from '../config/write-worker-mode';
import {
  RemoteCycles,
  WORKER_IDLE_MS,
  effectiveWriteWorkerMode,
  WriteWorkerSlot,
} from './write-worker/remote-cycles';
import { Writer } from './writer';
import { WriteTurn } from './write-turn';

const log = createLogger('db');

const BUSY_TIMEOUT_MS = 10_000;

/** The database of one Herald process: the models' Sequelize, the writer and the read side. */
export interface Database {
  sequelize: Sequelize;
  /** Every write goes through it (see writer.ts). */
  writer: Writer;
  /** Raw statements on the read connection: never inside a write transaction. */
  read: SqlExecutor;
  /** The SQLite write worker's slot (null: off, node-sqlite3, or PostgreSQL). */
  writeWorker: WriteWorkerSlot | null;
  /** The SQLite driver of both connections; null on PostgreSQL. */
  driver: WriteDriver | null;
  /**
   * SQLite: the file, and this Writer's side of the write turn (write-turn.ts) that a second
   * thread's Writer on the same file shares; null on PostgreSQL.
   */
  sqlite: { file: string; turn: WriteTurn } | null;
  /** Drains the writer, then closes both connections. */
  close(): Promise<void>;
}

/** Unset: better-sqlite3 where it loads, else node-sqlite3. Tests name one to cover both. */
export type WriteDriver = 'better-sqlite3' | 'sqlite3';

interface ConnectionManager {
  getConnection(options?: { uuid?: string; type?: string }): Promise<sqlite3.Database>;
  releaseConnection(connection: sqlite3.Database, force?: boolean): void;
}

function openReadOnly(file: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db: sqlite3.Database = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) =>
      err ? reject(err) : resolve(db),
    );
  });
}

/** The two connections, as Sequelize and the hot path use them, on one driver. */
interface Connections {
  /** True on better-sqlite3, whose build the write worker loads too. */
  betterSqlite: boolean;
  write: sqlite3.Database;
  writeSql: SqlExecutor;
  read: sqlite3.Database;
  readSql: SqlExecutor;
  close(): Promise<void>;
}

const PRAGMAS = 'PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON';

/**
 * Both connections on better-sqlite3 where its binary loads in this runtime, both on
 * node-sqlite3 where it does not; never one of each. Each driver carries its own copy of
 * SQLite, and two copies in one process do not see each other's file locks (POSIX locks
 * belong to the process, and SQLite tracks them per copy), which is one of SQLite's listed
 * ways to corrupt a database: a checkpoint by one copy could overwrite WAL frames a reader of
 * the other is using.
 *
 * better-sqlite3 is built against one runtime's ABI, and a development Electron run loads the
 * server with the binary npm built for Node (a packaged app is rebuilt for Electron by
 * electron-builder); node-sqlite3 is N-API and loads in both. Both drivers give the Writer the
 * same executor and Sequelize the same connection API; only the speed differs.
 */
async function openConnections(
  manager: ConnectionManager,
  dbFile: string,
  driver: WriteDriver | undefined,
): Promise<Connections> {
  let writeConn: SqliteConnection;
  try {
    if (driver === 'sqlite3') throw new Error('node-sqlite3 was asked for');
    writeConn = new SqliteConnection(dbFile, BUSY_TIMEOUT_MS);
  } catch (err) {
    if (driver === 'better-sqlite3') throw err;
    if (driver === undefined) {
      log.warn(
        `better-sqlite3 does not load here (${String(err).split('\n')[0]}); using ` +
          'node-sqlite3, which is slower under load (docs/architecture.md)',
      );
    }
    const write = await manager.getConnection({ uuid: 'write' });
    write.configure('busyTimeout', BUSY_TIMEOUT_MS);
    const writeSql = sqliteExecutor(write);
    await writeSql.exec(PRAGMAS);
    const read = await openReadOnly(dbFile);
    read.configure('busyTimeout', BUSY_TIMEOUT_MS);
    const readSql = sqliteExecutor(read);
    return {
      betterSqlite: false,
      write,
      writeSql,
      read,
      readSql,
      async close() {
        // SQLite refuses to close a connection with statements still prepared. The write
        // connection closes last (sequelize.close()), so it checkpoints and removes the WAL.
        await Promise.all([writeSql.close(), readSql.close()]);
        await new Promise<void>((resolve) => read.close(() => resolve()));
      },
    };
  }
  const writeSql = connectionExecutor(writeConn);
  await writeSql.exec(PRAGMAS);
  const readConn = new SqliteConnection(dbFile, BUSY_TIMEOUT_MS, { readonly: true });
  return {
    betterSqlite: true,
    write: new CallbackConnection(writeConn, 'write') as unknown as sqlite3.Database,
    writeSql,
    read: new CallbackConnection(readConn, 'read') as unknown as sqlite3.Database,
    readSql: connectionExecutor(readConn),
    async close() {
      // The last connection to close checkpoints the WAL into the file and removes it, which
      // a read-only one cannot do: a clean stop leaves the data folder one file (backups, and
      // no clear copy of a rewritten secret left in an old WAL frame).
      readConn.close();
      writeConn.close();
    },
  };
}

/**
 * Opens the SQLite database in WAL mode on two connections: one that writes and one that reads.
 *
 * Writes: Sequelize's sqlite dialect would open a fresh connection per transaction, and a new
 * connection re-reads the schema on its first statement (about 8 ms per send instead of
 * 0.5 ms); Herald instead keeps one write connection, on better-sqlite3 (see
 * sqlite-connection.ts for why), and the Writer decides when its transactions open and close.
 *
 * Reads: a SELECT issued on the write connection while a cycle is open would run inside that
 * transaction and see its uncommitted rows. WAL lets a second connection read the last
 * committed state while a write is under way, so every Sequelize SELECT outside a transaction
 * goes there. It is opened read-only: a write routed to it fails loudly instead of escaping
 * the writer.
 */
export async function openDatabase(
  dbFile: string,
  options: {
    writeDriver?: WriteDriver;
    writeWorker?: WriteWorkerMode;
    /** This Writer's side of a turn another thread made (write-turn.ts); else a new one. */
    turn?: WriteTurn;
  } = {},
): Promise<Database> {
  // Said once, by the thread that opens the database first.
  const tempDirProblem = isMainThread ? sqliteTempDirProblem() : null;
  if (tempDirProblem) log.warn(tempDirProblem);
  const sequelize = new Sequelize({
    dialect: 'sqlite',
    storage: dbFile,
    logging: process.env.HERALD_LOG_SQL ? (sql) => log.debug(sql) : false,
    transactionType: 'IMMEDIATE' as Transaction.TYPES,
    define: { underscored: true },
  });
  const manager = sequelize.connectionManager as unknown as ConnectionManager;
  const connections = await openConnections(manager, dbFile, options.writeDriver);
  const { write, writeSql, read: readConnection, readSql } = connections;

  manager.getConnection = async (options) =>
    options?.type === QueryTypes.SELECT ? readConnection : write;
  const release = manager.releaseConnection.bind(manager);
  manager.releaseConnection = (connection, force) => {
    // Both connections live as long as the database, which closes them itself.
    if ((connection === write || connection === readConnection) && !force) return;
    release(connection, force);
  };

  const writer = new Writer(writeSql, () => {
    // The cycle's transaction, already begun by the Writer, as Sequelize sees it.
    const t = new Transaction(sequelize, {});
    (t as unknown as { connection: sqlite3.Database }).connection = write;
    return t;
  });
  const turn = options.turn ?? new WriteTurn(0);
  writer.takeTurns(turn);
  // Only beside better-sqlite3: the worker loads the same build (one copy of SQLite in the
  // process, see openConnections), and node-sqlite3 already writes off the main thread.
  const mode = effectiveWriteWorkerMode(
    options.writeWorker ?? writeWorkerMode(process.env.HERALD_WRITE_WORKER),
  );
  let slot: WriteWorkerSlot | null = null;
  if (connections.betterSqlite && mode !== 'off') {
    slot = new WriteWorkerSlot(
      () => RemoteCycles.start(dbFile, BUSY_TIMEOUT_MS),
      mode === 'always' ? Infinity : WORKER_IDLE_MS,
    );
    writer.useWorkers(slot);
    if (mode === 'always') await slot.startNow();
  }

  return {
    sequelize,
    writer,
    read: readSql,
    writeWorker: slot,
    driver: connections.betterSqlite ? 'better-sqlite3' : 'sqlite3',
    sqlite: { file: dbFile, turn },
    async close() {
      await writer.close();
      // Before the main connections: the last to close checkpoints the WAL and removes it.
      await slot?.close();
      await connections.close();
      await sequelize.close();
    },
  };
}
