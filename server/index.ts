import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

import { Op } from 'sequelize';

import { createApp } from './app';
import { ChannelService } from './api/console/channels/channel-service';
import { AuthService } from './api/console/auth/auth-service';
import { SetupCode } from './api/console/auth/setup-code';
import { pruneIdempotencyKeys } from './api/send/idempotency';
import type { ChannelServices } from './channels/channel-adapter';
import { hostedMessageStore } from './channels/hosted-store';
import { createChannelRegistry } from './channels/registry';
import { parseAllowedHosts, parseCorsOrigins, parseMaxConnections } from './config/http-guards';
import { SettingsStore } from './config/settings-store';
import { parseTrustProxy } from './config/trust-proxy';
import type { AppContext } from './context';
import { SecretBox } from './crypto/secret-box';
import { deriveInstallId, loadServerKey } from './crypto/server-key';
import { acquireDataDirLock, type DataDirLock } from './data-dir/lock';
import { precreateDatabase, restrictDataDir } from './data-dir/permissions';
import { TokenCodec } from './crypto/tokens';
import { registerConfigVersionHooks } from './db/config-version';
import { pruneHistorySerially } from './db/history/retention';
import { SearchBackfill } from './db/history/search-backfill';
import { migrate } from './db/migrate';
import { HostedMessage, Session, initModels } from './db/models';
import { openDatabase } from './db/database';
import { HeraldEvents } from './events';
import { startJobs } from './jobs';
import { appRoot } from './lib/app-root';
import { systemClock, type Clock } from './lib/clock';
import { createLogger } from './lib/logger';
import { DeliveryState } from './queue/delivery-state';
import { Dispatcher } from './queue/dispatcher';
import { Scheduler } from './schedules/scheduler';
import { readVersion } from './version';

const log = createLogger('server');

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8765;

export interface StartServerOptions {
  host?: string;
  /** 0 picks a free port (tests); users get a stable port. */
  port?: number;
  dataDir: string;
  /** One-time secret for GET /api/console/desktop-login (the desktop window's sign-in). */
  desktopSecret?: string;
  /** Built console; defaults to renderer/dist beside the code. */
  rendererDir?: string;
  clock?: Clock;
  /** false leaves the dispatcher idle; tests then drive it with `dispatcher.runDue()`. */
  startDispatcher?: boolean;
  /** Jitter source for retry delays (tests make it deterministic). */
  random?: () => number;
  /** Extra Host names to answer to; default HERALD_ALLOWED_HOSTS. */
  allowedHosts?: string[];
  /** Origins whose pages may call the send APIs; default HERALD_CORS_ORIGINS. */
  corsOrigins?: string[];
  /** Open connections at most; default HERALD_MAX_CONNECTIONS, else 1024. */
  maxConnections?: number;
  /** Tests shorten these to see them act; users get HTTP_TIMEOUTS. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Proxies to trust, as HERALD_TRUST_PROXY (which it overrides). */
  trustProxy?: string;
}

export interface HttpTimeouts {
  /** To receive a request's headers: a client that trickles them is cut (slowloris). */
  headersMs: number;
  /** To receive a whole request; answers may take longer (event streams, V1's wait). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
  /** How often Node checks the two above. */
  checkEveryMs: number;
}

export const HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 30_000,
  requestMs: 60_000,
  keepAliveMs: 5_000,
  checkEveryMs: 10_000,
};

export interface HeraldServer {
  url: string;
  port: number;
  close(): Promise<void>;
  events: HeraldEvents;
  deliveries: { pause(): void; resume(): void; readonly paused: boolean };
  /** Scheduled messages; tests driving a manual clock call `tick()`. */
  scheduler: Scheduler;
  unreadCount(): Promise<number>;
  /**
   * The one-time code that creates the first administrator (printed by the entry points), or
   * null once an administrator exists.
   */
  setupCode(): string | null;
  /** Internals for tests and the desktop shell. */
  ctx: AppContext;
}

export class PortInUseError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(
      `Port ${port} on ${host} is already in use: is another Herald running? Choose another port with --port or HERALD_PORT.`,
    );
    this.name = 'PortInUseError';
  }
}

export { DataDirLockedError } from './data-dir/lock';

export const defaultRendererDir = (): string => join(appRoot(), 'renderer', 'dist');

/** Opens the data dir, migrates, starts the HTTP server and the delivery dispatcher. */
export async function startServer(opts: StartServerOptions): Promise<HeraldServer> {
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  // Before anything is written: a second Herald on this folder stops here (DataDirLockedError).
  const lock = acquireDataDirLock(opts.dataDir);
  try {
    return await openServer(opts, lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function openServer(opts: StartServerOptions, lock: DataDirLock): Promise<HeraldServer> {
  const host = opts.host ?? DEFAULT_HOST;
  const port = opts.port ?? DEFAULT_PORT;
  const clock = opts.clock ?? systemClock;
  // Read before anything is opened: a bad value stops the start with the variable's name.
  const guards = {
    listenHost: host,
    allowedHosts: opts.allowedHosts
      ? parseAllowedHosts(opts.allowedHosts.join(','), '--allowed-hosts')
      : parseAllowedHosts(process.env.HERALD_ALLOWED_HOSTS),
    corsOrigins: opts.corsOrigins
      ? parseCorsOrigins(opts.corsOrigins.join(','), '--cors-origins')
      : parseCorsOrigins(process.env.HERALD_CORS_ORIGINS),
  };
  const maxConnections =
    opts.maxConnections ?? parseMaxConnections(process.env.HERALD_MAX_CONNECTIONS);
  const timeouts = { ...HTTP_TIMEOUTS, ...opts.httpTimeouts };
  // Before anything is opened: a wrong value stops the start with a message naming it.
  const trustProxy = parseTrustProxy(opts.trustProxy ?? process.env.HERALD_TRUST_PROXY);
  restrictDataDir(opts.dataDir);
  const masterKey = loadServerKey(opts.dataDir);
  const db = await openDatabase(precreateDatabase(opts.dataDir));
  const { sequelize, writer: writeLock } = db;
  initModels(sequelize);
  registerConfigVersionHooks();
  // Before the writer's first job: schema changes run on the write connection on their own.
  await migrate(sequelize);
  const settings = new SettingsStore(writeLock);
  await settings.load();
  const events = new HeraldEvents();
  const deliveries = new DeliveryState({ writer: db.writer, read: db.read, events, clock });

  const channelServices: ChannelServices = {
    clock,
    installId: deriveInstallId(masterKey),
    storeHostedMessage: hostedMessageStore(db.writer, events),
  };

  let listenUrl = `http://${host}:${port}`;
  const ctx: AppContext = {
    sequelize,
    writeLock,
    deliveries,
    registry: createChannelRegistry(),
    channelServices,
    clock,
    events,
    // Set just below: the dispatcher loads channels through ChannelService, which needs ctx.
    dispatcher: undefined as unknown as Dispatcher,
    tokens: new TokenCodec(masterKey),
    secrets: new SecretBox(masterKey),
    settings,
    dataDir: opts.dataDir,
    version: readVersion(),
    listenUrl: () => listenUrl,
    desktopSecret: { value: opts.desktopSecret ?? null },
    setupCode: new SetupCode(),
    trustProxy,
  };
  const channels = new ChannelService(ctx);
  await channels.sealStoredProxyCredentials();
  ctx.dispatcher = new Dispatcher({
    state: deliveries,
    registry: ctx.registry,
    services: channelServices,
    clock,
    retryPolicy: () => settings.get().retry,
    loadChannel: (id) => channels.loadRuntime(id),
    random: opts.random,
  });

  const admin = new AuthService(ctx);
  if (
    await admin.ensureAdminFromEnv(process.env.HERALD_ADMIN_USER, process.env.HERALD_ADMIN_PASSWORD)
  ) {
    log.info(`created administrator "${process.env.HERALD_ADMIN_USER}" from HERALD_ADMIN_USER`);
  }
  // Only someone who sees Herald's output (or its own desktop window) can create the admin.
  if (await admin.setupRequired()) ctx.setupCode.issue();

  const app = createApp({
    ctx,
    channels,
    rendererDir: opts.rendererDir ?? defaultRendererDir(),
    guards,
  });
  let server: Server;
  try {
    server = await listen(app, host, port, timeouts, maxConnections);
  } catch (err) {
    await db.close();
    throw err;
  }
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  listenUrl = `http://${urlHost}:${actualPort}`;

  if (opts.startDispatcher !== false) await ctx.dispatcher.start();
  else await ctx.dispatcher.recover();
  const searchBackfill = new SearchBackfill(sequelize, writeLock);
  void searchBackfill.start();
  // After the dispatcher: runs missed while Herald was closed are sent (or skipped) here.
  const scheduler = new Scheduler(ctx);
  await scheduler.start();
  const stopJobs = startJobs([
    {
      name: 'prune history',
      everyMs: 60 * 60_000,
      run: () =>
        pruneHistorySerially(
          sequelize,
          writeLock,
          () => settings.get().retention,
          () => clock.now(),
        ),
    },
    { name: 'prune idempotency keys', everyMs: 60 * 60_000, run: () => pruneIdempotencyKeys(ctx) },
    {
      name: 'prune expired sessions',
      everyMs: 60 * 60_000,
      run: () =>
        writeLock.run(() =>
          Session.destroy({ where: { expiresAt: { [Op.lt]: new Date(clock.now()) } } }),
        ),
    },
  ]);

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      // Order matters: no new requests, then no new attempts, then the database.
      await closeHttp(server);
      stopJobs();
      await scheduler.stop();
      await searchBackfill.stop();
      await ctx.dispatcher.stop();
      await db.close();
      lock.release();
    })();
    return closing;
  };

  return {
    url: listenUrl,
    port: actualPort,
    close,
    events,
    deliveries: {
      pause: () => ctx.dispatcher.pause(),
      resume: () => ctx.dispatcher.resume(),
      get paused() {
        return ctx.dispatcher.paused;
      },
    },
    scheduler,
    unreadCount: () => HostedMessage.count({ where: { readAt: null } }),
    setupCode: () => ctx.setupCode.display(),
    ctx,
  };
}

function listen(
  app: ReturnType<typeof createApp>,
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
      },
      app,
    );
    server.keepAliveTimeout = timeouts.keepAliveMs;
    // Past the cap Node drops new sockets at once, so idle ones cannot exhaust descriptors.
    server.maxConnections = maxConnections;
    server.listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new PortInUseError(host, port) : err);
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
