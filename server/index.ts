import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

import type { Express } from 'express';

import { composeHerald } from './composition';
import {
  readHeraldConfig,
  type HeraldConfig,
  type HttpTimeouts,
  type StartServerOptions,
} from './config/herald-config';
import { redactDatabaseUrl } from './config/database-url';
import { acquireDataDirLock, type DataDirLock } from './data-dir/lock';
import { removeEmptyFolders } from './data-dir/empty-folders';
import { DB_FILE } from './data-dir/permissions';
import type { HeraldEvents } from './events';
import { AuthService } from './features/auth/auth-service';
import { MessageService } from './features/hosted/message-service';
import {
  desktopQuietHours,
  type DesktopQuietHours,
} from './features/quiet-hours/desktop-quiet-hours';
import { QuietHoursLookup } from './features/quiet-hours/quiet-hours-lookup';
import { answerClientError, answerExpectation } from './lib/client-error';
import { expressBornClasses } from './lib/express-born-requests';
import type { HeraldParts } from './parts';
import type { Scheduler } from './features/schedules/scheduler';

export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  HTTP_TIMEOUTS,
  defaultRendererDir,
  type HttpTimeouts,
  type StartServerOptions,
} from './config/herald-config';

export interface HeraldServer {
  url: string;
  port: number;
  close(): Promise<void>;
  events: HeraldEvents;
  deliveries: { pause(): void; resume(): void; readonly paused: boolean };
  /** Scheduled messages; tests driving a manual clock call `tick()`. */
  scheduler: Scheduler;
  /** How many hosted messages the user has not read (read state is per person). */
  unreadCount(userId: number): Promise<number>;
  /**
   * The user a session cookie's token signs in, or null (none, expired, signed out): the
   * desktop shell follows whoever its window's session holds.
   */
  userOfSession(token: string): Promise<number | null>;
  /**
   * The one-time code that creates the first administrator (printed by the entry points), or
   * null once an administrator exists.
   */
  setupCode(): string | null;
  /**
   * Releases the data-folder lock synchronously, for the moment the OS ends the session and no
   * asynchronous close would finish. Committed data needs nothing more: SQLite's WAL recovers it
   * on the next open.
   */
  releaseNow(): void;
  /**
   * Where the data is: the SQLite file in the data folder, or the PostgreSQL database
   * HERALD_DATABASE_URL names (its password left out), for the desktop's settings page.
   */
  database: { dialect: 'sqlite' | 'postgres'; location: string };
  /** The composed parts, for tests and the desktop shell. */
  ctx: HeraldParts;
  /** A person's quiet hours for the desktop's notifications, and the old switch's move. */
  quietHours: DesktopQuietHours;
}

/**
 * The port cannot be had: another program listens on it (EADDRINUSE), or the OS refuses it
 * (EACCES: on Windows, ranges reserved by Hyper-V, WSL or Docker; elsewhere a port below 1024
 * without privileges). Either way the answer is another port.
 */
export class PortInUseError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly code: string = 'EADDRINUSE',
  ) {
    super(
      code === 'EACCES'
        ? `Port ${port} on ${host} is refused by the operating system (on Windows, Hyper-V, WSL or Docker may reserve it: see \`netsh interface ipv4 show excludedportrange protocol=tcp\`). Choose another port with --port or HERALD_PORT.`
        : `Port ${port} on ${host} is already in use: is another Herald running? Choose another port with --port or HERALD_PORT.`,
    );
    this.name = 'PortInUseError';
  }
}

/** isPortRefusal() is true for the listen errors that another port would avoid. */
export function isPortRefusal(err: NodeJS.ErrnoException): boolean {
  return err.code === 'EADDRINUSE' || err.code === 'EACCES';
}

export { DataDirLockedError } from './data-dir/lock';

/** Reads the config, composes Herald from it, listens, then starts the background work. */
export async function startServer(opts: StartServerOptions): Promise<HeraldServer> {
  // Before anything is opened: a bad value stops the start with the option's or variable's name.
  const config = readHeraldConfig(opts);
  // The first folder this start made (undefined: the data folder was there already).
  const made = mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  try {
    // Before anything is written: a second Herald on this folder stops here (DataDirLockedError).
    const lock = acquireDataDirLock(config.dataDir, {
      takeOver: opts.takeOverDataDirLock === true,
    });
    try {
      return await openServer(config, lock);
    } catch (err) {
      lock.release();
      throw err;
    }
  } catch (err) {
    // A start that fails before writing (a key file that cannot be read, a database that cannot
    // be reached) leaves no empty folder of its own behind.
    if (made !== undefined) removeEmptyFolders(config.dataDir, made);
    throw err;
  }
}

async function openServer(config: HeraldConfig, lock: DataDirLock): Promise<HeraldServer> {
  const herald = await composeHerald(config);
  const { host, port } = config;
  let server: Server;
  try {
    server = await listen(herald.app, host, port, config.timeouts, config.maxConnections);
  } catch (err) {
    await herald.close();
    throw err;
  }
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `http://${urlHost}:${actualPort}`;
  herald.listeningAt(url);
  await herald.start();

  const { dispatcher, setupCode, sequelize, writeLock, clock, settings, listenUrl, events } =
    herald.parts;
  // What the desktop shell asks about its window's person, as the console's routes answer it.
  const desktopReads = new MessageService({
    sequelize,
    writeLock,
    clock,
    settings,
    listenUrl,
    events,
  });
  const desktopAuth = new AuthService({ writeLock, clock, settings });
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      // /readyz says so first, to whoever still reaches it while connections drain.
      herald.readiness.closing();
      // Order matters: no new requests, then no new attempts, then the database.
      await closeHttp(server);
      await herald.close();
      lock.release();
    })();
    return closing;
  };

  return {
    url,
    port: actualPort,
    close,
    events: herald.parts.events,
    deliveries: {
      pause: () => dispatcher.pause(),
      resume: () => dispatcher.resume(),
      get paused() {
        return dispatcher.paused;
      },
    },
    scheduler: herald.scheduler,
    unreadCount: (userId) => desktopReads.unreadCount(userId),
    userOfSession: async (token) => (await desktopAuth.userForSession(token))?.id ?? null,
    setupCode: () => setupCode.display(),
    releaseNow: () => lock.release(),
    database: config.databaseUrl
      ? { dialect: 'postgres', location: redactDatabaseUrl(config.databaseUrl) }
      : { dialect: 'sqlite', location: join(config.dataDir, DB_FILE) },
    ctx: herald.parts,
    quietHours: desktopQuietHours({
      lookup: new QuietHoursLookup(sequelize),
      writeLock,
      clock,
    }),
  };
}

function listen(
  app: Express,
  host: string,
  port: number,
  timeouts: HttpTimeouts,
  maxConnections: number,
): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(
      {
        connectionsCheckingInterval: timeouts.checkEveryMs,
        headersTimeout: timeouts.headersMs,
        requestTimeout: timeouts.requestMs,
        // A request without Host reaches the Host allow-list, which refuses it in the
        // envelope with the reason, instead of Node's bare 400.
        requireHostHeader: false,
        ...expressBornClasses(app),
      },
      app,
    );
    server.keepAliveTimeout = timeouts.keepAliveMs;
    // Past the cap Node drops new sockets at once, so idle ones cannot exhaust descriptors.
    server.maxConnections = maxConnections;
    // Malformed requests get the envelope too, not Node's bare 400/431 (lib/client-error.ts).
    server.on('clientError', answerClientError);
    server.on('checkExpectation', answerExpectation);
    server.listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(isPortRefusal(err) ? new PortInUseError(host, port, err.code) : err);
    });
  });
}

/** Stops accepting connections; open ones (event streams, waiting V1 calls) are cut after a grace period. */
function closeHttp(server: Server, graceMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
