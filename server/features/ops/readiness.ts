import type { SqlExecutor } from '../../db/sql';
import { errorMessage } from '../../lib/errors';
import { createLogger } from '../../lib/logger';

const log = createLogger('readiness');

/** A read that does not answer in this time counts as "not ready" (the busy timeout is 10 s). */
const PROBE_TIMEOUT_MS = 2_000;

export type ReadinessState = 'starting' | 'ready' | 'closing';

export type ReadinessAnswer = { ready: true } | { ready: false; reason: string };

/**
 * Whether this process should be sent traffic: its background work has started, it is not
 * shutting down (so its writer is open), and its read connection answers. The reasons are
 * fixed words; what went wrong in detail goes to the log, never into the answer.
 */
export class Readiness {
  private state: ReadinessState = 'starting';

  constructor(private readonly read: SqlExecutor) {}

  get current(): ReadinessState {
    return this.state;
  }

  /** Once everything has started. */
  ready(): void {
    if (this.state === 'starting') this.state = 'ready';
  }

  /** At the first step of shutting down, before the HTTP server stops and the writer closes. */
  closing(): void {
    this.state = 'closing';
  }

  async check(): Promise<ReadinessAnswer> {
    if (this.state === 'closing') return { ready: false, reason: 'shutting down' };
    if (this.state === 'starting') return { ready: false, reason: 'starting' };
    try {
      await withTimeout(
        // A real read of the file (a table every Herald database has), not just `SELECT 1`.
        this.read.all('SELECT name FROM schema_migrations LIMIT 1'),
        PROBE_TIMEOUT_MS,
      );
    } catch (err) {
      log.warn(`readiness: the database did not answer a read: ${errorMessage(err)}`);
      return { ready: false, reason: 'database unavailable' };
    }
    // Checked again: shutting down may have begun while the read was under way.
    if (this.current === 'closing') return { ready: false, reason: 'shutting down' };
    return { ready: true };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
