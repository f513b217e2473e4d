import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import sqlite3 from 'sqlite3';

import { sqlDayCounts } from '../../../channels/day-counts';
import { hostedMessageStore } from '../../../channels/hosted-store';
import { createChannelRegistry } from '../../../channels/registry';
import { SecretBox } from '../../../crypto/secret-box';
import { checkServerKey, settleServerKey } from '../../../crypto/key-fingerprint';
import {
  createDataDirKey,
  deriveInstallId,
  readServerKey,
  type ServerKey,
} from '../../../crypto/server-key';
import { parseServerKeySource } from '../../../config/server-key-source';
import { acquireDataDirLock, DataDirLockedError } from '../../../data-dir/lock';
import { DB_FILE, precreateDatabase, restrictDataDir } from '../../../data-dir/permissions';
import { databaseBytes, scratchFolderFor } from '../../../data-dir/scratch-folder';
import { migrate } from '../../../db/migrate';
import { initModels } from '../../../db/models';
import { openDatabase, type Database } from '../../../db/database';
import type { HeraldEventMap } from '../../../events';
import { systemClock } from '../../../lib/clock';
import { errorMessage } from '../../../lib/errors';
import { rowProgress } from '../../../lib/progress';
import { ChannelService } from '../../channel-config/channel-service';
import { proxySealing } from '../../channel-config/proxy-credentials';
import { ScheduleService } from '../../schedules/schedule-service';
import { SettingsStore } from '../../settings/settings-store';
import { importSnapshot, type ImportDeps } from './importer';
import { formatReport, type ImportReport } from './report';
import { recordImport } from '../../audit/audit-actions';
import { AuditLog } from '../../audit/audit-log';
import { readMessageNest, type Snapshot } from './snapshot';
import { openSource } from './source';
import { importTimeZone, MESSAGE_NEST_DEFAULT_ZONE, type ImportTimeZone } from './time-zone';

const USAGE = `Usage: herald import-message-nest <source> [--dry-run] [--with-logs] [--time-zone ZONE] [--data-dir DIR]
       (npm run import:message-nest -- <source> [options] from a checkout)
  <source>     Message Nest's SQLite file (conf/database.db), or its database as a URL:
               mysql://user:password@host:3306/database or postgres://user:password@host:5432/database
  --dry-run    print what would be created; change nothing
  --with-logs  also bring over Message Nest's send logs
  --time-zone  the IANA zone Message Nest ran in, which its schedules keep (default
               ${MESSAGE_NEST_DEFAULT_ZONE}, as in Message Nest's Docker image); a zone in a cron
               expression (CRON_TZ=) wins
  --data-dir   Herald's data folder (HERALD_DATA_DIR, default ./data, as for npm start)
Progress goes to stderr, the report to stdout.`;

export interface ImportCliOptions {
  source: string;
  dryRun: boolean;
  withLogs: boolean;
  /** The zone of imported schedules, already checked. */
  timeZone: ImportTimeZone;
  dataDir: string;
}

export function parseImportArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): ImportCliOptions | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      'dry-run': { type: 'boolean' },
      'with-logs': { type: 'boolean' },
      'time-zone': { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return 'help';
  if (positionals.length !== 1) {
    throw new Error(
      positionals.length === 0
        ? 'give the Message Nest database to import (a SQLite file or a mysql:// or postgres:// URL)'
        : `give one source, not ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  return {
    source: positionals[0],
    dryRun: values['dry-run'] ?? false,
    withLogs: values['with-logs'] ?? false,
    // Checked here, so an unknown zone is refused before anything is read or written.
    timeZone: importTimeZone(values['time-zone']),
    dataDir: resolve(values['data-dir'] ?? env.HERALD_DATA_DIR ?? 'data'),
  };
}

/** Imports into the data folder, which no running Herald may hold (its lock says so). */
async function importInto(options: ImportCliOptions): Promise<ImportReport> {
  // Bad input is refused before the data folder is touched.
  const snapshot = await readSource(options);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  let lock;
  try {
    lock = acquireDataDirLock(options.dataDir);
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      throw new Error(
        `Herald is running on ${options.dataDir} (pid ${err.pid}): import from its console ` +
          '(Settings → Import), or stop it and run this again',
      );
    }
    throw err;
  }
  try {
    restrictDataDir(options.dataDir);
    return await importIntoDatabase(precreateDatabase(options.dataDir), snapshot, {
      dryRun: false,
      withLogs: options.withLogs,
      timeZone: options.timeZone,
      dataDir: options.dataDir,
    });
  } finally {
    lock.release();
  }
}

/** Progress lines on stderr, so stdout holds only the report (and a redirect keeps it alone). */
const printProgress = (line: string) => process.stderr.write(`  ${line}\n`);

async function readSource(options: ImportCliOptions): Promise<Snapshot> {
  const source = await openSource(options.source);
  printProgress(`reading ${source.description}`);
  try {
    return await readMessageNest(source, options.withLogs);
  } finally {
    await source.close();
  }
}

/**
 * A dry run works on a snapshot of Herald's database in a temporary folder, so the data folder
 * stays byte for byte as it was (no migration, no key file, no lock) even while Herald runs.
 */
async function dryRun(options: ImportCliOptions): Promise<ImportReport> {
  const snapshot = await readSource(options);
  const original = join(options.dataDir, DB_FILE);
  const scratch = scratchFolderFor(
    'herald-import-',
    databaseBytes(options.dataDir),
    options.dataDir,
  );
  try {
    const copy = join(scratch, DB_FILE);
    if (existsSync(`${original}-wal`) || existsSync(`${original}-shm`)) {
      // Herald is running (or was not closed): a consistent snapshot through SQLite itself.
      await snapshotDatabase(original, copy);
    } else if (existsSync(original)) {
      // Closed cleanly, everything is in the one file; opening it (even read-only) would
      // leave -wal and -shm files behind, so it is copied instead.
      copyFileSync(original, copy);
    }
    return await importIntoDatabase(copy, snapshot, {
      dryRun: true,
      withLogs: options.withLogs,
      timeZone: options.timeZone,
      dataDir: options.dataDir,
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The key as the server would read it (HERALD_SECRET_KEY, HERALD_SECRET_KEY_FILE, else the data
 * folder's secret.key), or null when the data folder has none yet.
 */
function configuredKey(dataDir: string): ServerKey | null {
  const source = parseServerKeySource(
    process.env.HERALD_SECRET_KEY,
    process.env.HERALD_SECRET_KEY_FILE,
  );
  return readServerKey(source, dataDir);
}

/**
 * Opens (and migrates) a Herald database file and imports the snapshot into it. The key is
 * checked against the database's fingerprint first, as the server's start checks it (the
 * console import runs in a server that passed that check): secrets sealed with another key
 * would open nowhere, so a wrong or missing key is refused before anything is written.
 */
async function importIntoDatabase(
  dbFile: string,
  snapshot: Snapshot,
  options: { dryRun: boolean; withLogs: boolean; timeZone: ImportTimeZone; dataDir: string },
): Promise<ImportReport> {
  const configured = configuredKey(options.dataDir);
  const db = await openDatabase(dbFile);
  try {
    initModels(db.sequelize);
    await checkServerKey(configured, options.dataDir, '');
    // The key the import seals with: in a dry run any key (what it seals is thrown away with
    // the working copy), else the folder's, settled against the database as Herald's start does.
    const serverKey =
      configured ??
      (options.dryRun
        ? { key: randomBytes(32), origin: 'a dry run' }
        : createDataDirKey(options.dataDir));
    await migrate(db.sequelize, undefined, proxySealing(new SecretBox(serverKey.key)));
    const key = options.dryRun
      ? serverKey.key
      : (await settleServerKey(serverKey, options.dataDir, db.writer)).key;
    printProgress(options.dryRun ? 'importing (a dry run, rolled back)' : 'importing');
    const report = await importSnapshot(snapshot, importDeps(db, key), {
      dryRun: options.dryRun,
      withLogs: options.withLogs,
      timeZone: options.timeZone,
      progress: rowProgress({ write: printProgress }),
    });
    if (!report.dryRun) {
      const audit = new AuditLog({
        sequelize: db.sequelize,
        writeLock: db.writer,
        clock: systemClock,
      });
      await recordImport(audit, report);
    }
    return report;
  } finally {
    await db.close();
  }
}

/**
 * The services the server's console imports through, built on this database. No Herald runs
 * on the data folder (its lock says so, or a dry run works on a copy), so nobody hears their
 * events, and nothing here sends: a schedule's "run now" is refused.
 */
function importDeps(db: Database, key: Buffer): ImportDeps {
  const { sequelize, writer: writeLock } = db;
  const clock = systemClock;
  const registry = createChannelRegistry();
  const events = new EventEmitter<HeraldEventMap>();
  const channels = new ChannelService({
    registry,
    secrets: new SecretBox(key),
    sequelize,
    writeLock,
    clock,
    adapterRuntime: {
      clock,
      installId: deriveInstallId(key),
      storeHostedMessage: hostedMessageStore(writeLock, events),
      dayCounts: sqlDayCounts(writeLock),
    },
  });
  const schedules = new ScheduleService({
    sequelize,
    clock,
    writeLock,
    events,
    scheduleRunner: {
      send: () => Promise.reject(new Error('the command-line import sends nothing')),
    },
  });
  const settings = new SettingsStore(writeLock);
  return { writeLock, registry, channels, schedules, settings, now: () => new Date() };
}

/** A consistent copy of a database that may be in use, taken through a read-only connection. */
function snapshotDatabase(from: string, to: string): Promise<void> {
  return new Promise((done, fail) => {
    const db = new sqlite3.Database(from, sqlite3.OPEN_READONLY, (openErr) => {
      if (openErr) return fail(openErr);
      db.run('VACUUM INTO ?', [to], (err) => {
        db.close(() => (err ? fail(err) : done()));
      });
    });
  });
}

export async function runImportCli(argv: string[]): Promise<number> {
  let options;
  try {
    options = parseImportArgs(argv);
  } catch (err) {
    console.error(`${errorMessage(err)}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    console.log(USAGE);
    return 0;
  }
  try {
    const report = options.dryRun ? await dryRun(options) : await importInto(options);
    console.log(formatReport(report));
    if (!report.dryRun) console.log(`\nImported into ${options.dataDir}.`);
    return 0;
  } catch (err) {
    console.error(`Import failed: ${errorMessage(err)}\nNothing was imported.`);
    return 1;
  }
}
