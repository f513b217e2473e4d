/**
 * What the main thread and the delivery thread (server/delivery-worker.ts) say to each other.
 * Messages are structured clones; what the thread reports is sent in batches, one message per
 * turn of its event loop, not one per delivery.
 */
import type { HeraldEventMap } from '../../events';
import type { LogLevel } from '../../lib/logger';
import type { OutcomeRecord } from '../store/hot-path';

/** What the thread starts with (workerData). */
export interface DeliveryThreadStart {
  dbFile: string;
  /** The server key: the thread opens channels' sealed secrets with it. */
  masterKey: Uint8Array;
  /** The write turn's buffer (db/write-turn.ts); the thread is party 1. */
  turn: SharedArrayBuffer;
  /** The main thread's dispatcher's attempt slots. */
  concurrency: number;
  /** Idle this long with nothing in flight, the thread stops itself; Infinity: never. */
  idleMs: number;
  /**
   * The tag of the thread's lease tokens, new for each thread: when the thread dies, the
   * main thread puts back what it had claimed under it (DeliveryState.recoverTagged).
   */
  leaseTag: string;
  /**
   * The data folder and Herald's address when the thread started: the thread loads a send's
   * stored files from the one and builds their URLs on the other (or on publicBaseUrl).
   */
  files?: { dataDir: string; listenUrl: string };
  /** HERALD_WEB_PUSH_ENDPOINTS, parsed: the thread sends the pushes it claims (docs/reader.md). */
  webPushEndpoints?: string[];
}

/** The events the thread's deliveries emit, passed on to the main thread's HeraldEvents. */
export type RelayedEventName = 'delivery' | 'send' | 'message';
export type RelayedEvent = {
  [K in RelayedEventName]: { name: K; payload: HeraldEventMap[K][0] };
}[RelayedEventName];

/** One recorded attempt, for the main thread's metrics and its waiting V1 callers. */
export interface RelayedOutcome {
  outcome: Omit<OutcomeRecord, 'lease'>;
  channelType: string | null;
}

export type ToDeliveryThread =
  | { type: 'wake' }
  | { type: 'pause' }
  | { type: 'resume' }
  /** The settings, or the channels (their cached configs), changed on the main thread. */
  | { type: 'configuration'; what: 'settings' | 'sources' }
  /** Stop claiming, finish the attempts under way, close the database, then say `stopped`. */
  | { type: 'stop' };

export type FromDeliveryThread =
  | { type: 'ready' }
  | { type: 'start-failed'; message: string }
  | { type: 'batch'; events: RelayedEvent[]; outcomes: RelayedOutcome[] }
  | { type: 'log'; line: string; level: LogLevel }
  /** The thread's database is closed: asked to stop, or idle for `idleMs`. */
  | { type: 'stopped'; why: 'idle' | 'asked' };
