import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Op, UniqueConstraintError } from 'sequelize';

import { createApp } from './app';
import { ChannelService } from './api/console/channels/channel-service';
import { AuthService } from './api/console/auth/auth-service';
import { pruneIdempotencyKeys } from './api/send/idempotency';
import type { ChannelServices } from './channels/channel-adapter';
import { createChannelRegistry } from './channels/registry';
import { SettingsStore } from './config/settings-store';
import type { AppContext } from './context';
import { SecretBox } from './crypto/secret-box';
import { loadServerKey } from './crypto/server-key';
import { TokenCodec } from './crypto/tokens';
import { registerConfigVersionHooks } from './db/config-version';
import { GroupCommit } from './db/group-commit';
import { pruneHistorySerially } from './db/history/retention';
import { SearchBackfill } from './db/history/search-backfill';
import { migrate } from './db/migrate';
import { HostedMessage, Session, initModels } from './db/models';
import { WriteLock, createSequelize } from './db/sequelize';
import { HeraldEvents } from './events';
import { startJobs } from './jobs';
import { systemClock, type Clock } from './lib/clock';
import { errorMessage } from './lib/errors';
import { createLogger } from './lib/logger';
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
  const sequelize = await createSequelize(join(opts.dataDir, 'herald.db'));
  initModels(sequelize);
  registerConfigVersionHooks();
  await migrate(sequelize);
  const writeLock = new WriteLock();
  const settings = new SettingsStore(writeLock);
  await settings.load();
  const events = new HeraldEvents();

  const channelServices: ChannelServices = {
    clock,
    async storeHostedMessage(input) {
      const deliveryId = input.deliveryId > 0 ? input.deliveryId : null;
      try {
        const m = await writeLock.run(() => HostedMessage.create({ ...input, deliveryId }));
        // The message is stored: a listener that throws (tray, notifications) must not turn
        // this delivery into a failure and a duplicate on retry.
        try {
          events.emit('message', {
            id: m.id,
            title: m.title,
            content: m.content,
            format: m.format,
            url: m.url,
            createdAt: m.createdAt.toISOString(),
          });
        } catch (err) {
          log.error(`a listener of new hosted messages failed: ${errorMessage(err)}`);
        }
        return { id: m.id };
      } catch (err) {
        // The attempt that stored it died before recording success: it is stored once, not twice.
        if (err instanceof UniqueConstraintError && deliveryId !== null) {
          const existing = await HostedMessage.findOne({ where: { deliveryId } });
          if (existing) return { id: existing.id };
        }
        throw err;
      }
    },
  };

  let listenUrl = `http://${host}:${port}`;
  const ctx: AppContext = {
    sequelize,
    writeLock,
    sendCommits: new GroupCommit(sequelize, writeLock),
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
    sequelize,
    writeLock,
    registry: ctx.registry,
    services: channelServices,
    clock,
    events,
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
    await sequelize.close();
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
      await searchBackfill.stop();
      await ctx.dispatcher.stop();
      await sequelize.close();
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
