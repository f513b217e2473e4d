import pg from 'pg';

import type { SignInThrottle } from '../../domain/sign-in-throttle';
import type { RateLimiter } from '../../features/sending/rate-limiter';
import type { HeraldEvents, HostedMessageEvent } from '../../events';
import type { Clock } from '../../lib/clock';
import { createLogger } from '../../lib/logger';
import type { ChannelPacer } from '../../queue/pacer';
import { PostgresEventRelay } from './event-relay';
import {
  PostgresLoginThrottle,
  PostgresPacer,
  PostgresRateLimiter,
  pruneSharedLimits,
} from './shared-limits';

const log = createLogger('db');

/** Connections for the shared limits and NOTIFYs; the LISTEN connection is one more. */
const POOL_SIZE = 3;

/**
 * What one Herald process shares with the others on a PostgreSQL database, beside the queue
 * itself: limits counted in the database and live events over LISTEN/NOTIFY. On SQLite there
 * is one process and composition.ts keeps the in-memory versions instead.
 */
export interface SharedState {
  pacer: ChannelPacer;
  sendLimiter: RateLimiter;
  previewLimiter: RateLimiter;
  loginThrottle: SignInThrottle;
  relay: PostgresEventRelay;
  prune(now: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Its own small pool, apart from the Writer's and the reads': a limit is one autocommitted
 * statement that must not wait behind a write cycle, nor hold a row lock for as long as one.
 */
export async function openSharedState(deps: {
  url: string;
  events: HeraldEvents;
  clock: Clock;
  loadMessage(id: number): Promise<HostedMessageEvent | null>;
}): Promise<SharedState> {
  const pool = new pg.Pool({
    connectionString: deps.url,
    max: POOL_SIZE,
    connectionTimeoutMillis: 10_000,
    // Windows and failures are epoch milliseconds (int8): numbers, as everywhere in Herald.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === 20
          ? (v: string) => Number(v)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection that dies is replaced at its next use.
  pool.on('error', (err) => log.warn(`a shared-limits connection failed: ${err.message}`));
  // The pool listens for errors on idle clients only: a connection the server ends while a
  // client is checked out or being closed (a database dropped or restarted) would otherwise
  // raise an error nobody hears, which ends the process.
  pool.on('connect', (client) =>
    client.on('error', (err: Error) => log.debug(`a PostgreSQL connection ended: ${err.message}`)),
  );
  const relay = new PostgresEventRelay({
    url: deps.url,
    pool,
    events: deps.events,
    loadMessage: deps.loadMessage,
  });
  try {
    await relay.start();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return {
    pacer: new PostgresPacer(pool),
    sendLimiter: new PostgresRateLimiter(pool, 'send'),
    previewLimiter: new PostgresRateLimiter(pool, 'preview'),
    loginThrottle: new PostgresLoginThrottle(pool, deps.clock),
    relay,
    prune: (now) => pruneSharedLimits(pool, now),
    async close() {
      await relay.close();
      await pool.end();
    },
  };
}
