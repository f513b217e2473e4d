import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

import type BetterSqlite3 from 'better-sqlite3';

import { FINGERPRINT_SETTING, keyFingerprint } from '../../crypto/key-fingerprint';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../data-dir/permissions';
import {
  FORMAT,
  FORMAT_VERSION,
  appliedMigrations,
  contentChecksum,
  writeMeta,
} from './backup-format';
import { BackupRefused } from './backup-refused';
import { packFiles, type FilesInBackup } from './backup-files';
import { betterSqlite3 } from '../../db/better-sqlite3';

export interface BackupOptions {
  /** The data folder's herald.db; Herald may be running on it. */
  dbFile: string;
  /** Where the backup goes; replaced if it exists, only once the new one is complete. */
  out: string;
  /**
   * The server key, checked against the fingerprint the database holds (a backup with the wrong
   * key would restore into a Herald that cannot open its secrets); null when none is known.
   */
  key: Buffer | null;
  /** Leave the key out (an off-site copy): a restore then needs HERALD_SECRET_KEY. */
  withoutKey: boolean;
  /**
   * Put the files sent with messages into the backup (`herald backup --with-files`); left
   * out, their rows are left out too (backup-files.ts says why that is the default).
   */
  withFiles?: boolean;
  heraldVersion: string;
  now?: () => Date;
}

/** What a finished backup holds, for the command line, the console and observers. */
export interface BackupMade {
  file: string;
  bytes: number;
  createdAt: string;
  includesKey: boolean;
  /** The files included (withFiles), or left out. */
  files: FilesInBackup & { included: boolean };
  lastMigration: string | null;
  heraldVersion: string;
}

/**
 * Pages copied per step after the first. SQLite restarts an online backup whose source another
 * connection wrote between two steps, so under send load a backup in small steps might never
 * finish; the whole file in one step is one read transaction, consistent and never restarted,
 * and WAL lets Herald's writes go on meanwhile.
 */
const ALL_PAGES = 2 ** 31 - 1;

/** The fingerprint the database recorded at its first start, or null on one never started. */
function storedFingerprint(db: BetterSqlite3.Database): string | null {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'settings'").get();
  if (!table) return null;
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(FINGERPRINT_SETTING) as
    { value: string } | undefined;
  if (!row) return null;
  try {
    const value = JSON.parse(row.value) as { fingerprint?: unknown };
    return typeof value.fingerprint === 'string' ? value.fingerprint : null;
  } catch {
    return null;
  }
}

function keyFor(db: BetterSqlite3.Database, opts: BackupOptions): string {
  const stored = storedFingerprint(db);
  if (opts.key && stored && keyFingerprint(opts.key) !== stored) {
    throw new BackupRefused(
      'the server key found here (HERALD_SECRET_KEY, HERALD_SECRET_KEY_FILE or secret.key) is not ' +
        "the key this database's secrets are sealed with: a backup with it would not restore. " +
        'Run the backup with the key Herald runs with, or with --without-key.',
    );
  }
  if (!opts.key && !opts.withoutKey) {
    throw new BackupRefused(
      'no server key found (no secret.key in the data folder, no HERALD_SECRET_KEY or ' +
        'HERALD_SECRET_KEY_FILE): give the key Herald runs with, or back up with --without-key',
    );
  }
  return stored ?? (opts.key ? keyFingerprint(opts.key) : '');
}

/**
 * Writes a backup of a SQLite data folder's database (backup-format.ts): a consistent copy
 * taken with SQLite's online backup while Herald may be running, its metadata and checksum
 * added, written owner-only beside `out` and renamed into place when complete.
 */
export async function writeBackup(opts: BackupOptions): Promise<BackupMade> {
  if (!existsSync(opts.dbFile) || statSync(opts.dbFile).size === 0) {
    throw new BackupRefused(
      `${dirname(opts.dbFile)} holds no Herald database (${basename(opts.dbFile)}): give the data folder Herald runs with (--data-dir or HERALD_DATA_DIR)`,
    );
  }
  const now = opts.now ?? (() => new Date());
  const partial = join(
    dirname(opts.out),
    `.${basename(opts.out)}.${randomBytes(4).toString('hex')}.partial`,
  );
  // A folder named in --out that does not exist yet (the Docker docs' /data/backups) is made,
  // owner-only like the data folder; one that exists keeps its mode.
  mkdirSync(dirname(opts.out), { recursive: true, mode: PRIVATE_DIR_MODE });
  // Born owner-only: the copy holds every sealed secret, and the key unless left out.
  closeSync(openSync(partial, 'wx', PRIVATE_FILE_MODE));
  try {
    const source = new (betterSqlite3())(opts.dbFile, { readonly: true, fileMustExist: true });
    try {
      await source.backup(partial, { progress: () => ALL_PAGES });
    } finally {
      source.close();
    }
    const copy = new (betterSqlite3())(partial);
    let made: BackupMade;
    try {
      // One file: no -wal beside it to lose when the backup is copied elsewhere.
      copy.pragma('journal_mode = DELETE');
      const keyFingerprintValue = keyFor(copy, opts);
      const createdAt = now().toISOString();
      const lastMigration = appliedMigrations(copy).at(-1) ?? null;
      const includesKey = !opts.withoutKey && opts.key !== null;
      const withFiles = opts.withFiles === true;
      const files = packFiles(copy, dirname(opts.dbFile), withFiles);
      writeMeta(copy, {
        format: FORMAT,
        formatVersion: FORMAT_VERSION,
        heraldVersion: opts.heraldVersion,
        lastMigration,
        createdAt,
        keyFingerprint: keyFingerprintValue,
        key: includesKey ? opts.key : null,
        checksum: contentChecksum(copy),
      });
      made = {
        file: opts.out,
        bytes: 0,
        createdAt,
        includesKey,
        files: { ...files, included: withFiles },
        lastMigration,
        heraldVersion: opts.heraldVersion,
      };
    } finally {
      copy.close();
    }
    if (process.platform !== 'win32') chmodSync(partial, PRIVATE_FILE_MODE);
    renameSync(partial, opts.out);
    return { ...made, bytes: statSync(opts.out).size };
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}
