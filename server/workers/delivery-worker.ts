/**
 * The delivery thread: claims, attempts and their records on a thread of their own, beside
 * the main thread that accepts sends (docs/architecture.md, "The delivery thread"). It opens
 * the SQLite file on write and read connections of its own and runs the same Dispatcher and
 * DeliveryState the main thread would; the two Writers take turns at the file through a shared
 * WriteTurn, so neither waits in SQLite's busy handler. Started and stopped by
 * queue/delivery-thread/delivery-thread.ts; what it emits and records goes to the main
 * thread's events, metrics and waiting V1 callers in one message per turn of its event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';

import type { AdapterRuntime } from '../channels/channel-adapter';
import { sqlDayCounts } from '../channels/day-counts';
import { hostedMessageStore } from '../channels/hosted-store';
import { createChannelRegistry } from '../channels/registry';
import { SecretBox } from '../crypto/secret-box';
import { deriveInstallId } from '../crypto/server-key';
import { invalidateConfigCacheSettled } from '../db/config-version';
import { openDatabase, type Database } from '../db/database';
import { initModels } from '../db/models';
import { WriteTurn } from '../db/write-turn';
import { HeraldEvents } from '../events';
import { AttachmentService } from '../features/attachments/attachment-service';
import { ChannelService } from '../features/channel-config/channel-service';
import { QuietHoursLookup } from '../features/quiet-hours/quiet-hours-lookup';
import { SettingsStore } from '../features/settings/settings-store';
import { PushSender } from '../features/web-push/push-sender';
import { VapidKeys } from '../features/web-push/vapid-keys';
import { vapidSubject, WEB_PUSH_KIND } from '../features/web-push/web-push';
import { systemClock } from '../lib/clock';
import { errorMessage } from '../lib/errors';
import { createLogger, setLogOutput } from '../lib/logger';
import { DeliveryState } from '../queue/delivery-state';
import { Dispatcher } from '../queue/dispatcher';
import type {
  DeliveryThreadStart,
  FromDeliveryThread,
  RelayedEvent,
  RelayedOutcome,
  ToDeliveryThread,
} from '../queue/delivery-thread/protocol';

const port = parentPort;
if (!port) throw new Error('delivery-worker.ts runs as a worker thread (delivery-thread.ts)');
const post = (message: FromDeliveryThread) => port.postMessage(message);

// The main thread prints the lines, in its format and into the desktop app's log file.
setLogOutput({ write: (line, level) => post({ type: 'log', line, level }) }, 'json');
const log = createLogger('delivery-thread');

const start = workerData as DeliveryThreadStart;

let events: RelayedEvent[] = [];
let outcomes: RelayedOutcome[] = [];
let flushScheduled = false;
/** When the thread last had something to do (a wake, a recorded attempt). */
let lastActive = Date.now();

function flush(): void {
  flushScheduled = false;
  if (events.length === 0 && outcomes.length === 0) return;
  post({ type: 'batch', events, outcomes });
  events = [];
  outcomes = [];
}

function later(): void {
  lastActive = Date.now();
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flush);
}

async function compose(): Promise<{
  db: Database;
  dispatcher: Dispatcher;
  settings: SettingsStore;
}> {
  const db = await openDatabase(start.dbFile, {
    // The main thread's driver: two copies of SQLite in one process must never share a file.
    writeDriver: 'better-sqlite3',
    writeWorker: 'off',
    turn: new WriteTurn(1, start.turn),
  });
  try {
    initModels(db.sequelize);
    const heraldEvents = new HeraldEvents();
    for (const name of ['delivery', 'send', 'message'] as const) {
      heraldEvents.on(name, (payload: unknown) => {
        events.push({ name, payload } as RelayedEvent);
        later();
      });
    }
    const settings = new SettingsStore(db.writer);
    await settings.load();
    const masterKey = Buffer.from(start.masterKey);
    const registry = createChannelRegistry();
    const runtime: AdapterRuntime = {
      clock: systemClock,
      installId: deriveInstallId(masterKey),
      storeHostedMessage: hostedMessageStore(db.writer, heraldEvents),
      dayCounts: sqlDayCounts(db.writer),
    };
    const secrets = new SecretBox(masterKey);
    const channels = new ChannelService({
      registry,
      secrets,
      sequelize: db.sequelize,
      writeLock: db.writer,
      clock: systemClock,
      adapterRuntime: runtime,
    });
    // A send's files, read here as on the main thread: the same rows, folder and URLs.
    const files = start.files;
    const attachments = files
      ? new AttachmentService({
          sequelize: db.sequelize,
          writeLock: db.writer,
          settings,
          dataDir: files.dataDir,
          clock: systemClock,
          listenUrl: () => files.listenUrl,
        })
      : null;
    const pushSender = new PushSender({
      sequelize: db.sequelize,
      writeLock: db.writer,
      keys: new VapidKeys({ writeLock: db.writer, secrets }),
      extraEndpoints: start.webPushEndpoints ?? [],
      subject: () => vapidSubject(settings.get().publicBaseUrl),
      quietHours: new QuietHoursLookup(db.sequelize),
    });
    const state = new DeliveryState({
      writer: db.writer,
      read: db.read,
      events: heraldEvents,
      clock: systemClock,
      leaseTag: start.leaseTag,
      observer: {
        accepted: () => undefined,
        recorded: (outcome, channelType) => {
          const { lease: _lease, ...recorded } = outcome as typeof outcome & { lease?: string };
          outcomes.push({ outcome: recorded, channelType });
          later();
        },
      },
    });
    const dispatcher = new Dispatcher({
      state,
      registry,
      runtime,
      clock: systemClock,
      retryPolicy: () => settings.get().retry,
      loadChannel: (id) => channels.loadRuntime(id),
      ...(attachments && { loadAttachments: (ids) => attachments.load(ids) }),
      // The pushes it claims go out from here, as they would from the main thread.
      deliveryKinds: new Map([[WEB_PUSH_KIND, pushSender]]),
      quietHours: new QuietHoursLookup(db.sequelize),
      concurrency: start.concurrency,
    });
    // Paused until the main thread hands over, with its own pause state.
    dispatcher.pause();
    await dispatcher.start({ recover: false });
    return { db, dispatcher, settings };
  } catch (err) {
    await db.close();
    throw err;
  }
}

async function stop(parts: { db: Database; dispatcher: Dispatcher }, why: 'idle' | 'asked') {
  clearInterval(idleCheck);
  await parts.dispatcher.stop();
  flush();
  await parts.db.close();
  post({ type: 'stopped', why });
}

let idleCheck: NodeJS.Timeout | undefined;

compose().then(
  (parts) => {
    let stopping: Promise<void> | null = null;
    const stopOnce = (why: 'idle' | 'asked') => {
      stopping ??= stop(parts, why).catch((err) => {
        log.error(`stopping the delivery thread failed: ${errorMessage(err)}`);
        post({ type: 'stopped', why });
      });
    };
    port.on('message', (message: ToDeliveryThread) => {
      if (stopping) return;
      switch (message.type) {
        case 'wake':
          lastActive = Date.now();
          parts.dispatcher.wake();
          break;
        case 'pause':
          parts.dispatcher.pause();
          break;
        case 'resume':
          parts.dispatcher.resume();
          break;
        case 'configuration':
          if (message.what === 'settings') {
            parts.settings
              .load()
              .catch((err) => log.warn(`reloading the settings failed: ${errorMessage(err)}`));
          } else {
            invalidateConfigCacheSettled();
          }
          break;
        case 'stop':
          stopOnce('asked');
          break;
      }
    });
    if (Number.isFinite(start.idleMs)) {
      idleCheck = setInterval(
        () => {
          if (!parts.dispatcher.busy && Date.now() - lastActive >= start.idleMs) stopOnce('idle');
        },
        Math.min(start.idleMs, 5_000),
      );
    }
    post({ type: 'ready' });
  },
  (err: unknown) => post({ type: 'start-failed', message: errorMessage(err) }),
);
