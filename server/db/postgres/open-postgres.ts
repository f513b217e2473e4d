import pg, { type PoolClient } from 'pg';
import { QueryTypes, Sequelize, Transaction } from 'sequelize';

import { redactDatabaseUrl } from '../../config/database-url';
import { createLogger } from '../../lib/logger';
import type { Database } from '../database';
import { Writer } from '../writer';
import { pgExecutor } from './pg-executor';
import { WriteClient } from './write-client';

const log = createLogger('db');

/** Connections per process: one held by the Writer, the rest for reads. */
const POOL_SIZE = 10;
const CONNECT_TIMEOUT_MS = 10_000;

/** int8 and numeric type ids: counts, sums and epoch-millisecond columns. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** The database could not be reached at start: Herald stops instead of running half-open. */
export class DatabaseUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `cannot reach the PostgreSQL database at ${redactDatabaseUrl(url)} (HERALD_DATABASE_URL): ${reason || 'connection failed'}`,
    );
    this.name = 'DatabaseUnreachableError';
  }
}

interface PgConnectionManager {
  getConnection(options?: { uuid?: string; type?: string }): Promise<unknown>;
  releaseConnection(connection: unknown, force?: boolean): Promise<void> | void;
  getTypeParser(oid: number, format?: string): (value: string) => unknown;
  _refreshDynamicOIDs(connection: unknown): Promise<void>;
}

/**
 * Opens Herald's database on PostgreSQL, shaped like the SQLite one (database.ts) so that the
 * rest of Herald does not tell them apart:
 *
 * - One pg Pool per process. The **Writer** holds one client of it for as long as the database
 *   is open: its cycles are `BEGIN … COMMIT` there, and every Sequelize statement that is not a
 *   SELECT goes there too, so a model write inside a job joins the cycle's transaction exactly
 *   as it does on SQLite's one write connection.
 * - Every SELECT outside a transaction, Sequelize's and the hot path's, takes a client of the
 *   pool for the one statement and sees the last committed state, as SQLite's read connection.
 *
 * Several processes may open the same database: each has its own Writer; what keeps them apart
 * is in the statements (`FOR UPDATE SKIP LOCKED` claims with a lease, see hot-path-postgres.ts).
 */
export async function openPostgresDatabase(url: string): Promise<Database> {
  const sequelize = new Sequelize(url, {
    dialect: 'postgres',
    logging: process.env.HERALD_LOG_SQL ? (sql) => log.debug(sql) : false,
    define: { underscored: true },
  });
  const manager = sequelize.connectionManager as unknown as PgConnectionManager;
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Set as the connection starts, before any statement: times in UTC, as Sequelize expects.
    options: '-c TimeZone=UTC -c client_min_messages=warning',
    types: {
      // Counts and epoch milliseconds fit a double exactly: read them as numbers, as on SQLite.
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? (value: string) => Number(value)
          : manager.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A client that dies while idle in the pool is replaced at its next use; no crash for it.
  pool.on('error', (err) => log.warn(`a PostgreSQL connection failed: ${err.message}`));
  // The pool listens for errors on idle clients only: a connection the server ends while a
  // client is checked out or being closed (a database dropped or restarted) would otherwise
  // raise an error nobody hears, which ends the process.
  pool.on('connect', (client) =>
    client.on('error', (err: Error) => log.debug(`a PostgreSQL connection ended: ${err.message}`)),
  );
  let first: PoolClient;
  try {
    first = await pool.connect();
    await first.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new DatabaseUnreachableError(url, err);
  }
  await manager._refreshDynamicOIDs(first);
  // Lost at run time, the write connection is replaced at the next write (write-client.ts);
  // the writes of the moment are refused (503) and nothing half-written stays.
  const write = new WriteClient(pool, first);

  manager.getConnection = async (options) =>
    options?.type === QueryTypes.SELECT ? pool.connect() : write;
  manager.releaseConnection = (connection) => {
    // The write client lives as long as the database, which releases it itself.
    if (connection !== write) (connection as PoolClient).release();
  };

  const writeSql = pgExecutor(write as unknown as Pick<PoolClient, 'query'>);
  const writer = new Writer(writeSql, () => {
    // The cycle's transaction, already begun by the Writer, as Sequelize sees it.
    const t = new Transaction(sequelize, {});
    (t as unknown as { connection: WriteClient }).connection = write;
    return t;
  });

  return {
    sequelize,
    writer,
    read: pgExecutor(pool),
    // PostgreSQL's server does the work SQLite does in this process.
    writeWorker: null,
    driver: null,
    sqlite: null,
    async close() {
      await writer.close();
      write.release();
      await pool.end();
      await sequelize.close();
    },
  };
}
