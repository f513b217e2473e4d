import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { createLogger } from '../../lib/logger';
import { startWorker, workerEntry } from '../../lib/worker-file';
import { workerReady } from '../../lib/worker-ready';
import {
  fromWire,
  type FromWorker,
  type RemoteGroup,
  type ToWorker,
  type WireSettled,
  type WorkerStart,
} from './protocol';
import type { WriteWorkerMode } from '../../config/write-worker-mode';

const log = createLogger('write-worker');

export type RemoteSettled = { ok: true; value: unknown } | { ok: false; error: Error };

export const AUTO_MIN_CPUS = 4;

/** What `auto` comes to on a machine with this many logical CPUs; other modes stay. */
export function effectiveWriteWorkerMode(
  mode: WriteWorkerMode,
  cpus: number = availableParallelism(),
): Exclude<WriteWorkerMode, 'auto'> {
  if (mode !== 'auto') return mode;
  return cpus >= AUTO_MIN_CPUS ? 'on' : 'off';
}

/**
 * The main thread's side of the write worker (write-worker.ts). The Writer hands it the cycles
 * whose kinds name a worker program, one message per cycle, and waits for the answer before it
 * starts another cycle: the worker and the main write connection never hold a transaction at
 * once. If the worker dies, the cycles it had are refused and `usable` turns false, and the
 * Writer runs those kinds on the main thread from then on.
 */
export class RemoteCycles {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve(results: RemoteSettled[][]): void; reject(err: Error): void }
  >();
  private alive = true;
  private closing: Promise<void> | null = null;
  /** Cycles this worker wrote and answered. */
  answered = 0;

  /** Over a worker already started and ready (start() does both). */
  constructor(private readonly worker: Worker) {
    worker.on('message', (message: FromWorker) => {
      if (message.type !== 'done') return;
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      this.answered++;
      const results = JSON.parse(message.results) as WireSettled[][];
      waiting?.resolve(results.map((group) => group.map(settledFromWire)));
    });
    worker.on('error', (err) => this.lost(err));
    worker.on('exit', (code) => this.lost(new Error(`the write worker exited (code ${code})`)));
  }

  /**
   * Starts the worker on the database file and waits until its connection is open; null (and
   * a warning) when it cannot start, so Herald runs without it.
   */
  static async start(dbFile: string, busyTimeoutMs: number): Promise<RemoteCycles | null> {
    // Beside the bundle, or server/workers/ from the sources (lib/worker-file.ts); with none,
    // the hot path writes on the main thread as it does on PostgreSQL.
    const entry = workerEntry('write-worker');
    if (!entry) return null;
    const worker = startWorker(entry, {
      workerData: { dbFile, busyTimeoutMs } satisfies WorkerStart,
    });
    try {
      await workerReady<FromWorker>(worker, (message) =>
        message.type === 'ready'
          ? 'ready'
          : message.type === 'open-failed'
            ? fromWire(message.error)
            : undefined,
      );
    } catch (err) {
      log.warn(`the write worker did not start (${String(err)}); writing on the main thread`);
      await worker.terminate();
      return null;
    }
    return new RemoteCycles(worker);
  }

  get usable(): boolean {
    return this.alive && this.closing === null;
  }

  /** A cycle is on the worker. */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** One cycle on the worker: one transaction; per group, one result per item, in order. */
  run(groups: RemoteGroup[]): Promise<RemoteSettled[][]> {
    if (!this.usable) return Promise.reject(new Error('the write worker is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const message: ToWorker = { type: 'cycle', id, groups: JSON.stringify(groups) };
      this.worker.postMessage(message);
    });
  }

  /**
   * Ends the worker at once, as a crash would (tests). Only while no cycle is on it:
   * better-sqlite3 aborts the whole process when a thread is ended inside a failing statement.
   */
  async stopNow(): Promise<void> {
    await this.worker.terminate();
  }

  /** Closes the worker's connection (before the main thread's, which checkpoints the WAL). */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (!this.alive) return resolve();
      this.worker.on('message', (message: FromWorker) => {
        if (message.type === 'closed') resolve();
      });
      this.worker.once('exit', () => resolve());
      this.worker.postMessage({ type: 'close' } satisfies ToWorker);
    });
    return this.closing;
  }

  private lost(err: Error): void {
    if (!this.alive) return;
    this.alive = false;
    if (this.closing === null) log.error(`the write worker stopped: ${err.message}`);
    // Whether such a cycle committed is unknown: its callers are told it failed, as for a
    // lost database connection (a send's caller retries; deliveries are at least once).
    const cause = Object.assign(new Error(`the write worker stopped: ${err.message}`), {
      code: 'SQLITE_IOERR',
    });
    for (const waiting of this.pending.values()) waiting.reject(cause);
    this.pending.clear();
  }
}

function settledFromWire(s: WireSettled): RemoteSettled {
  return s.ok ? s : { ok: false, error: fromWire(s.error) };
}

/** A worker idle this long is stopped; the next burst of sends starts one again. */
export const WORKER_IDLE_MS = 30_000;

/**
 * Where the Writer gets its worker. The worker starts with the first cycle that could use it,
 * not with Herald, and stops after WORKER_IDLE_MS without one, so a desktop Herald that waits
 * for the odd message keeps the memory of one thread (issue 8's idle bar). Cycles while it
 * starts are written on the main thread. A worker that failed to start or died is not started
 * again: Herald goes on without it and says so once.
 */
export class WriteWorkerSlot {
  private current: RemoteCycles | null = null;
  private starting: Promise<void> | null = null;
  private givenUp = false;
  private lastUsed = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Cycles answered by workers that are gone. */
  private earlier = 0;

  constructor(
    private readonly open: () => Promise<RemoteCycles | null>,
    /** Infinity: never stopped for idleness (HERALD_WRITE_WORKER=always). */
    private readonly idleMs = WORKER_IDLE_MS,
  ) {}

  /** Starts the worker now rather than with the first cycle, and waits until it runs. */
  async startNow(): Promise<void> {
    this.take();
    await this.starting;
  }

  /** The running worker, or null (and one is started in the background). */
  take(): RemoteCycles | null {
    if (this.current?.usable) {
      this.lastUsed = Date.now();
      return this.current;
    }
    if (this.current && !this.current.usable) {
      this.retire();
      this.givenUp = true;
    }
    if (!this.givenUp && !this.starting) {
      this.starting = this.open()
        .then((remote) => {
          if (remote === null) this.givenUp = true;
          else this.started(remote);
        })
        .finally(() => (this.starting = null));
    }
    return null;
  }

  /** Cycles the workers of this slot wrote (tests). */
  get cycles(): number {
    return this.earlier + (this.current?.answered ?? 0);
  }

  /** A worker runs now. */
  get running(): boolean {
    return this.current?.usable ?? false;
  }

  /** Waits for a start under way (tests; close). */
  async settled(): Promise<void> {
    await this.starting;
  }

  async close(): Promise<void> {
    this.givenUp = true;
    await this.starting;
    if (this.idleTimer) clearInterval(this.idleTimer);
    await this.retire()?.close();
  }

  private retire(): RemoteCycles | null {
    const gone = this.current;
    this.earlier += gone?.answered ?? 0;
    this.current = null;
    return gone;
  }

  private started(remote: RemoteCycles): void {
    this.current = remote;
    this.lastUsed = Date.now();
    if (this.idleTimer || this.idleMs === Infinity) return;
    this.idleTimer = setInterval(
      () => {
        const idle = this.current;
        if (!idle || idle.busy || Date.now() - this.lastUsed < this.idleMs) return;
        // No cycle is on it (busy is false), and the next take() starts another.
        void this.retire()?.close();
      },
      Math.min(this.idleMs, 10_000),
    );
    this.idleTimer.unref();
  }
}
