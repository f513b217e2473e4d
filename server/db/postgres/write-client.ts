import type { Pool, PoolClient } from 'pg';

import { isDatabaseUnavailable } from '../../lib/database-errors';
import { createLogger } from '../../lib/logger';

const log = createLogger('db');

type Callback = (err: Error | null, result?: unknown) => void;

/** A transaction the lost connection took with it: what is left of it must not run elsewhere. */
export class LostTransactionError extends Error {
  readonly code = '08006';
  constructor() {
    super('the connection to PostgreSQL was lost during this write; nothing of it was stored');
    this.name = 'LostTransactionError';
  }
}

/**
 * The Writer's connection to PostgreSQL, which outlives a lost connection. Every statement of
 * the process's writes goes through here in order (the Writer runs a cycle's kinds side by
 * side, and pg deprecates calling `query` on a busy client). When the connection is lost, the
 * client is dropped and the next statement connects again.
 *
 * A connection lost inside a transaction takes the transaction with it: the statements of that
 * cycle still to come fail (they would otherwise run on a fresh connection outside any
 * transaction, each committed alone) until the Writer's ROLLBACK ends the cycle. Its jobs are
 * answered 503 and nothing of them is stored; the next cycle begins on a new connection.
 */
export class WriteClient {
  private client: PoolClient | null = null;
  private connecting: Promise<PoolClient> | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private inTransaction = false;
  private lostTransaction = false;
  /** Sequelize marks a connection it no longer trusts; this one replaces its client itself. */
  _invalid = false;

  constructor(
    private readonly pool: Pool,
    first: PoolClient,
  ) {
    this.adopt(first);
  }

  query(...args: unknown[]): Promise<unknown> | undefined {
    const callback =
      typeof args[args.length - 1] === 'function' ? (args.pop() as Callback) : undefined;
    const run = this.tail.then(() => this.run(args));
    this.tail = run.catch(() => undefined);
    if (!callback) return run;
    run.then(
      (result) => callback(null, result),
      (err: Error) => callback(err),
    );
    return undefined;
  }

  /** Gives the connection back to the pool (the database is closing). */
  release(): void {
    const client = this.client;
    this.client = null;
    client?.release();
  }

  private async run(args: unknown[]): Promise<unknown> {
    // Sequelize passes the text; the hot path's executor a `{ name, text, values }` config.
    const first = args[0] as string | { text?: unknown } | undefined;
    const text =
      typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : '';
    // Whole statements only: `ROLLBACK TO <savepoint>` does not end the transaction.
    const statement = text.trim().replace(/;$/, '').toUpperCase();
    const begins = /^(BEGIN|START TRANSACTION)\b/.test(statement);
    const ends = /^(COMMIT|END|ROLLBACK)( WORK| TRANSACTION)?$/.test(statement);
    if (this.lostTransaction) {
      if (ends && statement.startsWith('ROLLBACK')) {
        this.lostTransaction = false;
        this.inTransaction = false;
        return { rows: [], rowCount: 0 };
      }
      throw new LostTransactionError();
    }
    const client = await this.current();
    try {
      const result = await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
      if (begins) this.inTransaction = true;
      if (ends) this.inTransaction = false;
      return result;
    } catch (err) {
      if (isDatabaseUnavailable(err)) this.drop(client, err);
      throw err;
    }
  }

  private async current(): Promise<PoolClient> {
    if (this.client) return this.client;
    this.connecting ??= this.pool
      .connect()
      .then((client: PoolClient) => {
        this.adopt(client);
        log.info('reconnected to PostgreSQL');
        return client;
      })
      .finally(() => {
        this.connecting = null;
      });
    return this.connecting;
  }

  private adopt(client: PoolClient): void {
    this.client = client;
    this._invalid = false;
    // Unheard, an error on an idle client would end the process.
    client.on('error', (err) => this.drop(client, err));
  }

  private drop(client: PoolClient, err: unknown): void {
    if (this.client !== client) return;
    log.error(
      `the write connection to PostgreSQL was lost (${err instanceof Error ? err.message : String(err)}); the next write connects again`,
    );
    this.client = null;
    if (this.inTransaction) this.lostTransaction = true;
    // Released with the error, the pool destroys the connection instead of reusing it.
    client.release(err instanceof Error ? err : new Error(String(err)));
  }
}
