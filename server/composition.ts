import type { Express } from 'express';

import { AuthService } from './features/auth/auth-service';
import { hashesAtTestCost } from './features/auth/password-hash';
import { SetupCode } from './features/auth/setup-code';
import { ChannelService } from './features/channel-config/channel-service';
import { proxySealing } from './features/channel-config/proxy-credentials';
import { QuietHoursLookup } from './features/quiet-hours/quiet-hours-lookup';
import { ScheduleService } from './features/schedules/schedule-service';
import { AttachmentService } from './features/attachments/attachment-service';
import { SendRateLimiter } from './features/sending/rate-limiter';
import { SendService } from './features/sending/send-service';
import { recordBackup } from './features/audit/audit-actions';
import { AuditLog, SCHEDULE_ACTOR } from './features/audit/audit-log';
import { composeApp } from './compose-app';
import type { AdapterRuntime } from './channels/channel-adapter';
import { sqlDayCounts } from './channels/day-counts';
import { hostedMessageStore } from './channels/hosted-store';
import { createChannelRegistry } from './channels/registry';
import type { HeraldConfig } from './config/herald-config';
import { SettingsStore } from './features/settings/settings-store';
import { BackupService, SCHEDULE_CHECK_MS } from './features/backup/backup-service';
import { SecretBox } from './crypto/secret-box';
import { composeWebPush } from './features/web-push/web-push';
import { ImageProxyService } from './features/image-proxy/image-proxy-service';
import { checkServerKey, settleServerKey } from './crypto/key-fingerprint';
import {
  createDataDirKey,
  deriveInstallId,
  readServerKey,
  type ServerKey,
} from './crypto/server-key';
import { TokenCodec } from './crypto/tokens';
import { restrictDataDir, precreateDatabase } from './data-dir/permissions';
import {
  invalidateConfigCacheSettled,
  onConfigChange,
  registerConfigVersionHooks,
} from './db/config-version';
import { openDatabase, type Database } from './db/database';
import { SearchBackfill } from './db/history/search-backfill';
import { migrate } from './db/migrate';
import { openPostgresDatabase } from './db/postgres/open-postgres';
import { openSharedState, type SharedState } from './db/postgres/shared-state';
import { hostedMessageEvent } from './db/hosted-messages';
import { HostedMessage, initModels } from './db/models';
import { HeraldMetrics } from './features/ops/metrics';
import type { OpsRouterDeps } from './api/ops-router';
import { Readiness } from './features/ops/readiness';
import { HeraldEvents } from './events';
import { housekeepingJobs } from './housekeeping';
import { startJobs } from './jobs';
import { systemClock } from './lib/clock';
import { errorMessage } from './lib/errors';
import { createLogger } from './lib/logger';
import type { HeraldParts } from './parts';
import { DeliveryState } from './queue/delivery-state';
import { Dispatcher } from './queue/dispatcher';
import { deliveryThreadFor } from './queue/delivery-thread/delivery-thread';
import { ScheduleRunner } from './features/schedules/schedule-runner';
import { Scheduler } from './features/schedules/scheduler';
import { DigestService } from './features/digests/digest-service';
import { readVersion } from './version';

const log = createLogger('server');

/** Herald built from its config: the parts, the HTTP app over them, and their lifecycle. */
export interface Herald {
  parts: HeraldParts;
  app: Express;
  scheduler: Scheduler;
  /** What /readyz answers; the server marks it closing before it stops taking requests. */
  readiness: Readiness;
  /** Tells the parts the address the server really listens on (port 0 picks one). */
  listeningAt(url: string): void;
  /** Background work, once the app listens: deliveries, search backfill, schedules, housekeeping. */
  start(): Promise<void>;
  /** Stops what start() started and closes the database, in the reverse order. */
  close(): Promise<void>;
}

/**
 * The composition root: builds every part once, in dependency order, and hands each service and
 * router only the parts it declares (its `…Deps` type). Nothing else constructs a service.
 */
export async function composeHerald(config: HeraldConfig): Promise<Herald> {
  restrictDataDir(config.dataDir);
  // Before the database: a key file that cannot be read stops the start with nothing created.
  const configuredKey = readServerKey(config.secretKey, config.dataDir);
  const db = config.databaseUrl
    ? await openPostgresDatabase(config.databaseUrl)
    : await openDatabase(precreateDatabase(config.dataDir), { writeWorker: config.writeWorker });
  try {
    return await composeOver(db, configuredKey, config);
  } catch (err) {
    await db.close();
    throw err;
  }
}

async function composeOver(
  db: Database,
  configuredKey: ServerKey | null,
  config: HeraldConfig,
): Promise<Herald> {
  const { clock } = config;
  const { sequelize, writer: writeLock, read } = db;
  initModels(sequelize);
  registerConfigVersionHooks();
  // Before anything is migrated, sealed or opened: a key other than the database's, or none
  // where it has one, stops the start here (reading only).
  await checkServerKey(configuredKey, config.dataDir);
  // The key settleServerKey takes below: the configured one, else the data folder's own (made
  // now on a first start; a database that has a key's fingerprint and no key was refused above).
  const serverKey = configuredKey ?? createDataDirKey(config.dataDir);
  // Before the writer's first job: schema changes run on the write connection on their own; a
  // migration that seals what an older version stored in clear borrows the key.
  const applied = await migrate(sequelize, undefined, proxySealing(new SecretBox(serverKey.key)));
  if (applied.length > 0) log.info(`database migrated forward: ${applied.join(', ')}`);
  const masterKey = (await settleServerKey(serverKey, config.dataDir, writeLock)).key;
  const version = readVersion();
  const ops = {
    readiness: new Readiness(read),
    metrics: config.metrics.enabled ? new HeraldMetrics({ read, clock, version }) : null,
    metricsSettings: config.metrics,
  };

  const events = new HeraldEvents();
  // Several processes may share a PostgreSQL database: limits and live events go through it.
  const shared = config.databaseUrl
    ? await openSharedState({
        url: config.databaseUrl,
        events,
        clock,
        loadMessage: async (id) => {
          const m = await HostedMessage.findByPk(id);
          return m && hostedMessageEvent(m, m.id, m.priority, m.createdAt.toISOString());
        },
      })
    : null;
  try {
    // The key is checked again once this process has joined the others on PostgreSQL (start()):
    // `herald rotate-key` holds the processes' lock while it re-seals, so a start that read the
    // fingerprint before a rotation committed learns of it there, before it delivers anything.
    const recheckKey = () => checkServerKey(serverKey, config.dataDir);
    return await composeParts(db, masterKey, config, events, shared, ops, version, recheckKey);
  } catch (err) {
    await shared?.close();
    throw err;
  }
}

async function composeParts(
  db: Database,
  masterKey: Buffer,
  config: HeraldConfig,
  events: HeraldEvents,
  shared: SharedState | null,
  ops: OpsRouterDeps,
  version: string,
  recheckKey: () => Promise<void>,
): Promise<Herald> {
  const { readiness, metrics } = ops;
  const { clock, dataDir } = config;
  const { sequelize, writer: writeLock, read } = db;
  const settings = new SettingsStore(writeLock, () =>
    events.emit('configuration', { what: 'settings' }),
  );
  await settings.load();
  const deliveries = new DeliveryState({
    writer: writeLock,
    read,
    events,
    clock,
    observer: metrics ?? undefined,
  });
  const registry = createChannelRegistry();
  const secrets = new SecretBox(masterKey);
  const tokens = new TokenCodec(masterKey);
  const adapterRuntime: AdapterRuntime = {
    clock,
    installId: deriveInstallId(masterKey),
    storeHostedMessage: hostedMessageStore(writeLock, events),
    dayCounts: sqlDayCounts(writeLock),
  };
  // Until the server listens: the configured address (listeningAt() sets the real one).
  let address = `http://${config.host}:${config.port}`;
  const listenUrl = () => address;
  const attachments = new AttachmentService({
    sequelize,
    writeLock,
    settings,
    clock,
    listenUrl,
    dataDir,
  });

  const channels = new ChannelService({
    registry,
    secrets,
    sequelize,
    writeLock,
    clock,
    adapterRuntime,
  });
  // Pushes of hosted messages: deliveries of a kind of their own (architecture.md "Web Push").
  const webPush = await composeWebPush(db, secrets, events, config, settings, () =>
    dispatcher.wake(),
  );
  const dispatcher = new Dispatcher({
    state: deliveries,
    registry,
    runtime: adapterRuntime,
    clock,
    retryPolicy: () => settings.get().retry,
    loadChannel: (id) => channels.loadRuntime(id),
    loadAttachments: (ids) => attachments.load(ids),
    deliveryKinds: webPush.kinds,
    quietHours: new QuietHoursLookup(sequelize),
    random: config.random,
    pacer: shared?.pacer,
    onSaturated: () => deliveryThread?.demand(),
  });
  // Beside better-sqlite3 only (the thread loads the same build), and only on the system
  // clock, which the thread keeps time by (a test that moves a clock delivers here).
  const deliveryThread =
    db.sqlite && db.driver === 'better-sqlite3' && config.startDispatcher && clock === systemClock
      ? deliveryThreadFor(config.deliveryThread, {
          dbFile: db.sqlite.file,
          masterKey,
          turn: db.sqlite.turn,
          dispatcher,
          deliveries,
          events,
          observer: metrics ?? undefined,
          files: { dataDir: config.dataDir, listenUrl },
          webPushEndpoints: config.webPushEndpoints,
        })
      : null;
  // A V1 caller here may wait for an attempt another process records.
  // Another process accepted sends (or queued one again): this one may claim them too.
  // Another process changed what this one keeps in memory: it reads it again.
  shared?.relay.onRemote((e) => {
    if (e.name === 'configuration') reloadConfiguration(e.payload.what);
    if (e.name === 'delivery') void dispatcher.recordedElsewhere(e.payload);
    if (e.name === 'send' && e.payload.status === 'pending') dispatcher.wake();
  });
  // Digests (issue 46 §2): sends their rules collect, closed and delivered once per window.
  const digests = new DigestService({
    sequelize,
    writeLock,
    clock,
    events,
    dispatcher,
    registry,
    settings,
    listenUrl,
  });
  const sends = new SendService({
    digests,
    deliveries,
    dispatcher,
    registry,
    settings,
    tokens,
    listenUrl,
    clock,
    writeLock,
    // One budget per task or template, whichever API or hook it sends through.
    limiter: shared?.sendLimiter ?? new SendRateLimiter(),
    attachments,
  });
  const scheduleRunner = new ScheduleRunner({ sends });
  const schedules = new ScheduleService({ sequelize, clock, writeLock, events, scheduleRunner });
  const scheduler = new Scheduler({ clock, events, writeLock, scheduleRunner });
  const searchBackfill = new SearchBackfill(sequelize, writeLock);
  const audit = new AuditLog({ sequelize, writeLock, clock });
  const backups = new BackupService({
    // Scheduled backups are recorded here; a console download by its route, with who asked.
    observer: {
      backupMade: (made) => {
        if (made.by !== 'schedule') return;
        void recordBackup(audit, 'backup.create', made.file, SCHEDULE_ACTOR).catch((err) =>
          log.warn(`the audit log could not record a scheduled backup: ${String(err)}`),
        );
      },
    },
    dataDir: config.dataDir,
    sqlite: !config.databaseUrl,
    onlineBackup: db.driver === 'better-sqlite3',
    masterKey,
    version,
    clock,
    writeLock,
    backupsByDefault: config.backupsByDefault,
  });

  const parts: HeraldParts = {
    sequelize,
    writeLock,
    deliveries,
    registry,
    adapterRuntime,
    clock,
    events,
    dispatcher,
    deliveryThread,
    tokens,
    secrets,
    settings,
    dataDir: config.dataDir,
    version,
    listenUrl,
    desktopSecret: { value: config.desktopSecret },
    setupCode: new SetupCode(),
    trustProxy: config.trustProxy,
    channels,
    sends,
    attachments,
    scheduleRunner,
    schedules,
    digests,
    audit,
    imageProxy: new ImageProxyService({
      sequelize,
      writeLock,
      settings,
      clock,
      dataDir: config.dataDir,
      masterKey,
    }),
  };

  const reloadConfiguration = (what: 'settings' | 'sources') => {
    if (what === 'settings') {
      settings.load().catch((err) => log.warn(`reloading the settings failed: ${String(err)}`));
      return;
    }
    invalidateConfigCacheSettled();
  };
  const stopConfigRelay = shared
    ? onConfigChange(() => events.emit('configuration', { what: 'sources' }))
    : () => {};

  const auth = new AuthService({ writeLock, clock, settings });
  if (hashesAtTestCost()) {
    log.warn('HERALD_TEST_CHEAP_PASSWORD_HASH is set: passwords are hashed at a test cost');
  }
  const { user, password } = config.admin;
  if (await auth.ensureAdminFromEnv(user, password)) {
    log.info(`created administrator "${user}" from HERALD_ADMIN_USER`);
  }
  // Only someone who sees Herald's output (or its own desktop window) can create the admin.
  if (await auth.setupRequired()) parts.setupCode.issue();

  const app = composeApp(parts, auth, config, shared, ops, backups, webPush);

  let stopJobs = () => {};
  return {
    parts,
    app,
    scheduler,
    readiness,
    listeningAt(url) {
      address = url;
    },
    async start() {
      // On PostgreSQL the recovery joins the processes' lock, waiting out a key rotation.
      await dispatcher.recover();
      if (config.databaseUrl) await recheckKey();
      webPush.fanout.start();
      if (config.startDispatcher) await dispatcher.start({ recover: false });
      if (config.deliveryThread === 'on') await deliveryThread?.startNow();
      // Pushes of messages a stop committed but never planned (push-fanout.ts recover()).
      await webPush.fanout
        .recover()
        .catch((err) => log.warn(`unplanned pushes were not recovered: ${errorMessage(err)}`));
      void searchBackfill.start();
      // After the dispatcher: runs missed while Herald was closed are sent (or skipped) here.
      await scheduler.start();
      await digests.start();
      stopJobs = startJobs([
        ...housekeepingJobs({ sequelize, writeLock, settings, clock, events, shared, attachments }),
        { name: 'scheduled backup', everyMs: SCHEDULE_CHECK_MS, run: () => backups.runScheduled() },
      ]);
      readiness.ready();
    },
    async close() {
      readiness.closing();
      stopJobs();
      stopConfigRelay();
      await scheduler.stop();
      await digests.stop();
      webPush.fanout.stop();
      await searchBackfill.stop();
      // No new attempts before the database goes; the thread's connection closes first.
      await deliveryThread?.close();
      await dispatcher.stop();
      await shared?.close();
      await db.close();
    },
  };
}
