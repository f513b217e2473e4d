import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import type { BackupSchedule, BackupSchedulePatch } from '../../../contract/console/backup';
import { DB_FILE, PRIVATE_DIR_MODE } from '../../data-dir/permissions';
import { stagingFolder } from '../../data-dir/staging';
import type { WriteLock } from '../../db/writer';
import type { Clock } from '../../lib/clock';
import { conflict } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import { tell, type BackupObserver } from './backup-observer';
import {
  DEFAULT_BACKUP_FOLDER,
  defaultSchedule,
  pruneScheduled,
  readSchedule,
  scheduledBackups,
  scheduledName,
  writeSchedule,
  type BackupScheduleSetting,
} from './backup-schedule';
import { writeBackupOffThread } from './backup-thread';
import type { BackupMade } from './make-backup';
import { postgresBackupAdvice } from './postgres-advice';

const log = createLogger('backup');

/** Why a backup is refused on node-sqlite3 (a development Electron run); docs/desktop.md. */
export const NO_ONLINE_BACKUP =
  'Backups here need better-sqlite3, which does not load in this runtime (a development ' +
  'Electron run, on node-sqlite3). Make the same backup while Herald runs from a terminal: ' +
  '`npm run backup -- --out FILE --data-dir FOLDER` (docs/running-for-a-team.md).';

/** How often the schedule is looked at; a backup is due once its interval has passed. */
export const SCHEDULE_CHECK_MS = 10 * 60_000;

export interface BackupServiceDeps {
  dataDir: string;
  /** False on PostgreSQL, where pg_dump backs Herald up. */
  sqlite: boolean;
  /**
   * False where better-sqlite3 does not load and Herald runs on node-sqlite3 (a development
   * Electron run): a backup needs better-sqlite3's online backup. Unset: true.
   */
  onlineBackup?: boolean;
  /** The key Herald runs with: into each backup unless left out. */
  masterKey: Buffer;
  version: string;
  clock: Clock;
  writeLock: WriteLock;
  /** The desktop app: daily backups into the data folder until the schedule is saved. */
  backupsByDefault: boolean;
  /** Told of each backup made (an audit log). */
  observer?: BackupObserver;
}

/** The console's backup downloads are staged in the data folder (data-dir/staging.ts). */
export const DOWNLOAD_SCRATCH_PREFIX = '.backup-download-';

/** A backup made for a download: the file, its name for the browser, and its removal. */
export interface Download {
  file: string;
  name: string;
  made: BackupMade;
  remove(): void;
}

/** Backups of a running Herald: the console's download and the scheduled ones. */
export class BackupService {
  private lastError: string | null = null;
  private running: Promise<BackupMade | null> | null = null;

  constructor(private readonly deps: BackupServiceDeps) {}

  private get fallback(): BackupScheduleSetting {
    return defaultSchedule(this.deps.backupsByDefault);
  }

  private folderOf(schedule: BackupScheduleSetting): string {
    return schedule.folder || join(this.deps.dataDir, DEFAULT_BACKUP_FOLDER);
  }

  private refuseOnPostgres(): void {
    if (!this.deps.sqlite) throw conflict(postgresBackupAdvice());
  }

  /** Before a backup on SQLite: refused, with what to do, where it cannot be made. */
  private refuseWithoutOnlineBackup(): void {
    if (this.deps.onlineBackup === false) throw conflict(NO_ONLINE_BACKUP);
  }

  /** On a thread of its own (backup-thread.ts): sends and deliveries go on meanwhile. */
  private backup(out: string, withoutKey: boolean): Promise<BackupMade> {
    return writeBackupOffThread({
      dbFile: join(this.deps.dataDir, DB_FILE),
      out,
      key: this.deps.masterKey,
      withoutKey,
      heraldVersion: this.deps.version,
      now: () => new Date(this.deps.clock.now()),
    });
  }

  private told(made: BackupMade, by: 'console' | 'schedule', user?: string): void {
    const { observer } = this.deps;
    if (observer?.backupMade) {
      tell(
        () => observer.backupMade?.({ ...made, by, user }),
        (m) => log.warn(m),
      );
    }
  }

  /** A backup made now into a private scratch folder; the caller streams it and removes it. */
  async download(options: { withoutKey: boolean; user?: string }): Promise<Download> {
    this.refuseOnPostgres();
    this.refuseWithoutOnlineBackup();
    const scratch = stagingFolder(this.deps.dataDir, DOWNLOAD_SCRATCH_PREFIX);
    const remove = () => rmSync(scratch, { recursive: true, force: true });
    const name = scheduledName(new Date(this.deps.clock.now()));
    try {
      const made = await this.backup(join(scratch, name), options.withoutKey);
      this.told(made, 'console', options.user);
      return { file: made.file, name, made, remove };
    } catch (err) {
      remove();
      throw err;
    }
  }

  async schedule(): Promise<BackupSchedule> {
    const setting = await readSchedule(this.fallback);
    const newest = scheduledBackups(this.folderOf(setting))[0];
    return {
      ...setting,
      defaultFolder: join(this.deps.dataDir, DEFAULT_BACKUP_FOLDER),
      available: this.deps.sqlite,
      lastBackupAt: newest ? new Date(newest.at).toISOString() : null,
      lastError: this.lastError,
    };
  }

  async updateSchedule(patch: BackupSchedulePatch): Promise<BackupSchedule> {
    await writeSchedule(this.deps.writeLock, this.fallback, patch);
    return this.schedule();
  }

  /**
   * The job: a backup when the schedule is on and the newest one in its folder is older than
   * its interval, then the oldest past `keep` deleted. Due is read from the folder, so a
   * restart neither skips a backup nor makes an extra one.
   */
  runScheduled(): Promise<BackupMade | null> {
    // One at a time: a slow backup must not overlap the next check.
    this.running ??= this.scheduledOnce().finally(() => (this.running = null));
    return this.running;
  }

  private async scheduledOnce(): Promise<BackupMade | null> {
    if (!this.deps.sqlite) return null;
    const setting = await readSchedule(this.fallback);
    if (!setting.enabled) return null;
    const folder = this.folderOf(setting);
    const now = this.deps.clock.now();
    const newest = scheduledBackups(folder)[0];
    // Half a check of slack, so a daily backup does not slip by a check each day.
    if (newest && now - newest.at < setting.everyHours * 3_600_000 - SCHEDULE_CHECK_MS / 2) {
      return null;
    }
    try {
      this.refuseWithoutOnlineBackup();
      mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
      const made = await this.backup(
        join(folder, scheduledName(new Date(now))),
        !setting.includeKey,
      );
      const pruned = pruneScheduled(folder, setting.keep);
      this.lastError = null;
      log.info(
        `scheduled backup ${made.file}${pruned.length ? `; deleted ${pruned.length} older` : ''}`,
      );
      this.told(made, 'schedule');
      return made;
    } catch (err) {
      this.lastError = err instanceof Error ? err.message : String(err);
      throw err;
    }
  }
}
