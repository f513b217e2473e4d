import { Worker } from 'node:worker_threads';

import type { DeliveryThreadMode } from '../../config/delivery-thread-mode';
import { onConfigChange } from '../../db/config-version';
import type { WriteTurn } from '../../db/write-turn';
import type { HeraldEvents } from '../../events';
import { createLogger, writeLogLine } from '../../lib/logger';
import { testDurationFromEnv } from '../../lib/test-duration';
import { startWorker, workerEntry } from '../../lib/worker-file';
import { workerReady } from '../../lib/worker-ready';
import { leaseTag, type DeliveryObserver, type DeliveryState } from '../delivery-state';
import type { Dispatcher } from '../dispatcher';
import type {
  DeliveryThreadStart,
  FromDeliveryThread,
  RelayedEvent,
  ToDeliveryThread,
} from './protocol';

const log = createLogger('delivery-thread');

/**
 * In `auto`, a thread with nothing to do this long stops; the main thread delivers again.
 * TEST ONLY: HERALD_TEST_THREAD_IDLE_MS shortens it, so a test sees the thread stop.
 */
export const threadIdleMs = (): number =>
  testDurationFromEnv('HERALD_TEST_THREAD_IDLE_MS', 100) ?? 30_000;

/** How long a stop may take (the attempts under way finish first) before the thread is ended. */
const STOP_TIMEOUT_MS = 15_000;

/** The delivery thread is party 1 of the write turn (db/write-turn.ts). */
const THREAD_PARTY = 1;

export interface DeliveryThreadDeps {
  dbFile: string;
  masterKey: Buffer;
  /** The main thread's side of the write turn its Writer takes. */
  turn: WriteTurn;
  /** The main thread's dispatcher: it hands claiming over while the thread runs. */
  dispatcher: Dispatcher;
  /** The main thread's delivery state: it puts back what a dead thread had claimed. */
  deliveries: Pick<DeliveryState, 'recoverTagged'>;
  events: HeraldEvents;
  observer?: DeliveryObserver;
  /** Infinity: never stopped for idleness (`on`). */
  idleMs: number;
  /** Where a send's files are, and Herald's address for their URLs (issue 43 §2). */
  files?: { dataDir: string; listenUrl(): string };
  /** The push services allowed besides the known ones (HERALD_WEB_PUSH_ENDPOINTS). */
  webPushEndpoints?: string[];
}

/**
 * The main thread's side of the delivery thread (server/delivery-worker.ts). Started, it
 * takes over claiming from the main thread's Dispatcher (handOver); stopped, idle or by
 * close(), it hands claiming back. What it reports is passed on: its events to HeraldEvents
 * (the console's streams, the desktop shell), its recorded attempts to the metrics and to V1
 * callers waiting here, its log lines to this thread's log.
 *
 * A thread that fails to start, or ends unexpectedly, is not started again: Herald delivers on
 * the main thread from then on and says so once. Whatever way a thread ends, once it has, the
 * deliveries it had claimed and not recorded (it died, or a stop ran out of time) go back to
 * waiting under their lease tag at once, rather than when their leases run out minutes later:
 * the main thread attempts them again, as startup recovery does after a crash (delivery is at
 * least once; an attempt under way when the thread died may have reached its platform).
 */
export class DeliveryThread {
  private worker: Worker | null = null;
  private starting: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;
  private givenUp = false;
  private closed = false;
  private wakeQueued = false;
  /** Threads started so far (tests, the bench). */
  starts = 0;

  private readonly unsubscribe: () => void;

  constructor(private readonly deps: DeliveryThreadDeps) {
    // What the thread keeps in memory follows what changes here: the settings (their event)
    // and the channels, tasks, templates and instances (the configuration version's hooks).
    const settingsChanged = (e: { what: 'settings' | 'sources' }) =>
      this.configurationChanged(e.what);
    deps.events.on('configuration', settingsChanged);
    const stopSources = onConfigChange(() => this.configurationChanged('sources'));
    this.unsubscribe = () => {
      deps.events.off('configuration', settingsChanged);
      stopSources();
    };
  }

  /** The thread runs and claims. */
  get running(): boolean {
    return this.worker !== null && this.stopping === null;
  }

  /** Starts the thread unless one runs, starts, or failed before (auto: on a burst). */
  demand(): void {
    if (this.worker || this.starting || this.givenUp || this.closed) return;
    this.starting = this.start().finally(() => (this.starting = null));
  }

  /** Starts the thread now and waits until it claims (or failed to start). */
  async startNow(): Promise<void> {
    this.demand();
    await this.starting;
  }

  /** Stops the thread (its attempts under way are recorded first) and refuses to start again. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    await this.starting;
    await this.stop();
  }

  /** Stops the thread if it runs; the main thread claims again. */
  stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    this.stopping ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        log.warn(`the delivery thread did not stop within ${STOP_TIMEOUT_MS / 1000} s; ending it`);
        void worker.terminate();
      }, STOP_TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      worker.on('message', (m: FromDeliveryThread) => m.type === 'stopped' && done());
      worker.once('exit', done);
      this.post({ type: 'stop' });
    }).then(() => this.ended());
    return this.stopping;
  }

  /** Ends the thread at once, as a crash would (tests). */
  async crashForTest(): Promise<void> {
    await this.worker?.terminate();
  }

  /** Passes a configuration change on (the settings, or channels whose configs it caches). */
  configurationChanged(what: 'settings' | 'sources'): void {
    this.post({ type: 'configuration', what });
  }

  /**
   * Every accepted send wakes the dispatcher: the wake-ups of one turn of the event loop (a
   * write cycle's sends) go over as one message.
   */
  private wake(): void {
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.post({ type: 'wake' });
    });
  }

  private post(message: ToDeliveryThread): void {
    this.worker?.postMessage(message);
  }

  private async start(): Promise<void> {
    const entry = workerEntry('delivery-worker');
    if (!entry) {
      this.givenUp = true;
      return;
    }
    const d = this.deps;
    const tag = leaseTag();
    const worker = startWorker(entry, {
      workerData: {
        dbFile: d.dbFile,
        masterKey: new Uint8Array(d.masterKey),
        turn: d.turn.buffer,
        concurrency: d.dispatcher.concurrency,
        idleMs: d.idleMs,
        leaseTag: tag,
        ...(d.files && { files: { dataDir: d.files.dataDir, listenUrl: d.files.listenUrl() } }),
        ...(d.webPushEndpoints && { webPushEndpoints: d.webPushEndpoints }),
      } satisfies DeliveryThreadStart,
    });
    // Lines and events come from the first message on, the ready one included.
    worker.on('message', (m: FromDeliveryThread) => this.receive(m));
    try {
      await workerReady<FromDeliveryThread>(worker, (m) =>
        m.type === 'ready' ? 'ready' : m.type === 'start-failed' ? new Error(m.message) : undefined,
      );
    } catch (err) {
      this.givenUp = true;
      d.turn.abandon(THREAD_PARTY);
      log.warn(`the delivery thread did not start (${String(err)}); delivering on the main thread`);
      await worker.terminate();
      return;
    }
    this.worker = worker;
    // close() came while it started: it waits for this, then stops the thread.
    if (this.closed) return;
    this.starts += 1;
    worker.on('error', (err) => this.lost(err));
    worker.on('exit', (code) => {
      this.lost(new Error(`it exited (code ${code})`));
      void this.putBack(tag);
    });
    this.deps.dispatcher.handOver({
      wake: () => this.wake(),
      pause: () => this.post({ type: 'pause' }),
      resume: () => this.post({ type: 'resume' }),
    });
  }

  private receive(m: FromDeliveryThread): void {
    switch (m.type) {
      case 'batch':
        for (const e of m.events) this.emit(e);
        for (const { outcome, channelType } of m.outcomes) {
          this.deps.observer?.recorded(outcome, channelType);
          this.deps.dispatcher.recordedOnThread({
            deliveryId: outcome.id,
            status: outcome.status,
            error: outcome.error,
            reply: outcome.reply,
          });
        }
        break;
      case 'log':
        writeLogLine(m.line, m.level);
        break;
      case 'stopped':
        // Idle, it stopped of itself and its database is closed; asked, stop() waits for this.
        if (m.why === 'idle' && !this.stopping) void this.ended();
        break;
    }
  }

  private emit(e: RelayedEvent): void {
    // The union's name and payload go together; EventEmitter's typing cannot follow that.
    (this.deps.events.emit as (name: string, payload: unknown) => boolean)(e.name, e.payload);
  }

  /** The thread ended on purpose: the main thread claims again (unless Herald is closing). */
  private async ended(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.stopping = null;
    this.deps.turn.abandon(THREAD_PARTY);
    this.deps.dispatcher.takeBack();
    // Its keep-alive sockets would keep it alive after its database closed. Waited for: a
    // process that exits while a thread holding native modules is still being torn down can
    // abort (seen: SIGTERM, then an exit by signal instead of code 0).
    await worker?.terminate();
  }

  /**
   * After the thread ended (its database connection is closed with it, so nothing of its
   * is still being written): its unrecorded claims go back to waiting and the main thread
   * looks for work. Herald closing leaves them to the next start's recovery.
   */
  private async putBack(tag: string): Promise<void> {
    if (this.closed) return;
    try {
      const n = await this.deps.deliveries.recoverTagged(tag);
      if (n > 0) {
        log.warn(`${n} deliveries the delivery thread had claimed are queued again`);
        this.deps.dispatcher.wake();
      }
    } catch (err) {
      // Their leases still run out, and then they are claimed again.
      log.error(`putting back the delivery thread's claims failed: ${String(err)}`);
    }
  }

  private lost(err: Error): void {
    if (!this.worker || this.stopping) return;
    this.worker = null;
    this.givenUp = true;
    this.deps.turn.abandon(THREAD_PARTY);
    log.error(
      `the delivery thread stopped (${err.message}); delivering on the main thread from now on`,
    );
    this.deps.dispatcher.takeBack();
  }
}

/** The delivery thread HERALD_DELIVERY_THREAD asks for: none (off), kept (on), or on bursts (auto). */
export function deliveryThreadFor(
  mode: DeliveryThreadMode,
  deps: Omit<DeliveryThreadDeps, 'idleMs'>,
): DeliveryThread | null {
  if (mode === 'off') return null;
  return new DeliveryThread({ ...deps, idleMs: mode === 'on' ? Infinity : threadIdleMs() });
}
