import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Op } from 'sequelize';

import { createApp } from './app';
import { ChannelService } from './api/console/channels/channel-service';
import { AuthService } from './api/console/auth/auth-service';
import { pruneIdempotencyKeys } from './api/send/idempotency';
import type { ChannelServices } from './channels/channel-adapter';
import { hostedMessageStore } from './channels/hosted-store';
import { createChannelRegistry } from './channels/registry';
import { SettingsStore } from './config/settings-store';
import type { AppContext } from './context';
import { SecretBox } from './crypto/secret-box';
import { loadServerKey } from './crypto/server-key';
import { TokenCodec } from './crypto/tokens';
import { registerConfigVersionHooks } from './db/config-version';
import { migrate } from './db/migrate';
import { HostedMessage, Session, initModels } from './db/models';
import { openDatabase } from './db/database';
import { HeraldEvents } from './events';
import { startJobs } from './jobs';
import { systemClock, type Clock } from './lib/clock';
import { createLogger } from './lib/logger';
import { DeliveryState } from './queue/delivery-state';
import { Dispatcher } from './queue/dispatcher';
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
}

export interface HeraldServer {
  url: string;
  port: number;
  close(): Promise<void>;
  events: HeraldEvents;
  deliveries: { pause(): void; resume(): void; readonly paused: boolean };
  unreadCount(): Promise<number>;
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

export const defaultRendererDir = (): string =>
  fileURLToPath(new URL('../renderer/dist', import.meta.url));

/** Opens the data dir, migrates, starts the HTTP server and the delivery dispatcher. */
export async function startServer(opts: StartServerOptions): Promise<HeraldServer> {
  const host = opts.host ?? DEFAULT_HOST;
  const port = opts.port ?? DEFAULT_PORT;
  const clock = opts.clock ?? systemClock;
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const masterKey = loadServerKey(opts.dataDir);
  const db = await openDatabase(join(opts.dataDir, 'herald.db'));
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
  };
  const channels = new ChannelService(ctx);
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

  const app = createApp({ ctx, channels, rendererDir: opts.rendererDir ?? defaultRendererDir() });
  let server: Server;
  try {
    server = await listen(app, host, port);
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
  const stopJobs = startJobs([
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
      await ctx.dispatcher.stop();
      await db.close();
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
    unreadCount: () => HostedMessage.count({ where: { readAt: null } }),
    ctx,
  };
}

function listen(app: ReturnType<typeof createApp>, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
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
