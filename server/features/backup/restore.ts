import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

import { parseServerKeySource } from '../../config/server-key-source';
import { KEY_FILE, readServerKey } from '../../crypto/server-key';
import { runningHeraldPid } from '../../data-dir/lock';
import { DB_FILE, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../data-dir/permissions';
import { openDatabase } from '../../db/database';
import { migrate } from '../../db/migrate';
import { META_TABLE } from './backup-format';
import { unpackFiles } from './backup-files';
import { checkBackup, restoreKey } from './backup-check';
import { BackupRefused } from './backup-refused';
import { betterSqlite3 } from '../../db/better-sqlite3';
import { SecretBox } from '../../crypto/secret-box';
import { proxySealing } from '../channel-config/proxy-credentials';

export interface RestoreOptions {
  /** The backup file (npm run backup, Settings → Backup, or a scheduled one). */
  file: string;
  /** The data folder to fill. */
  dataDir: string;
  /** Replace a folder that holds data; the old one is kept aside, renamed. */
  force?: boolean;
  /** Where HERALD_SECRET_KEY and HERALD_SECRET_KEY_FILE are read (a backup without its key). */
  env?: NodeJS.ProcessEnv;
  /** Each step, for the command line's stderr. */
  progress?: (line: string) => void;
  now?: () => Date;
}

/** What a restore did, for the command line and observers. */
export interface RestoreDone {
  dataDir: string;
  file: string;
  /** When the backup was made, and by which Herald. */
  backupCreatedAt: string;
  backupHeraldVersion: string;
  /** Migrations run on it to bring it up to this Herald. */
  migrated: string[];
  /** The backup's key (written as secret.key), or the configured one (not written). */
  keyFrom: 'backup' | 'environment';
  /** Where the folder's previous content went (with --force), or null. */
  keptAside: string | null;
}

function refuseIfRunning(dataDir: string): void {
  const pid = runningHeraldPid(dataDir);
  if (pid !== null) {
    throw new BackupRefused(
      `Herald is running on ${dataDir} (pid ${pid}): stop it first. Nothing was changed.`,
    );
  }
}

/** Whether the folder exists with anything in it; a file where the folder should be is refused. */
function holdsData(dataDir: string): boolean {
  if (!existsSync(dataDir)) return false;
  if (!statSync(dataDir).isDirectory()) {
    throw new BackupRefused(
      `${dataDir} is a file, not a folder: give a data folder to restore into`,
    );
  }
  return readdirSync(dataDir).length > 0;
}

/** The key configured here, if any: a backup made without its key needs one. */
function configuredKey(dataDir: string, env: NodeJS.ProcessEnv) {
  let source;
  try {
    source = parseServerKeySource(env.HERALD_SECRET_KEY, env.HERALD_SECRET_KEY_FILE);
  } catch (err) {
    throw new BackupRefused((err as Error).message);
  }
  if (source.kind === 'data-dir') return null;
  try {
    return readServerKey(source, dataDir);
  } catch (err) {
    throw new BackupRefused((err as Error).message);
  }
}

const stamp = (date: Date) => date.toISOString().replace(/[:.]/g, '-');

/**
 * Fills a data folder from a backup. Everything happens in a folder beside the target first:
 * the file is copied there, checked (integrity, checksum, format, migrations), its key checked
 * against its fingerprint, migrated forward, and only then renamed into place. A refusal at any
 * step leaves the target as it was.
 */
export async function restoreBackup(opts: RestoreOptions): Promise<RestoreDone> {
  const file = resolve(opts.file);
  const dataDir = resolve(opts.dataDir);
  const env = opts.env ?? process.env;
  const say = opts.progress ?? (() => undefined);
  const now = opts.now ?? (() => new Date());
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw new BackupRefused(`${file} does not exist: give the backup file to restore`);
  }
  const hadData = holdsData(dataDir);
  refuseIfRunning(dataDir);
  if (hadData && !opts.force) {
    throw new BackupRefused(
      `${dataDir} already holds data: restore into an empty or new folder, or give --force to replace it (its content is then kept aside as ${basename(dataDir)}.before-restore-<time>). Nothing was changed.`,
    );
  }
  const configured = configuredKey(dataDir, env);

  mkdirSync(dirname(dataDir), { recursive: true });
  // Beside the target, so the final rename stays on one file system.
  const work = mkdtempSync(join(dirname(dataDir), `.${basename(dataDir)}.restoring-`));
  try {
    if (process.platform !== 'win32') chmodSync(work, PRIVATE_DIR_MODE);
    const copy = join(work, DB_FILE);
    copyFileSync(file, copy);
    if (process.platform !== 'win32') chmodSync(copy, PRIVATE_FILE_MODE);
    say(`checking ${file}`);
    const label = basename(file);
    const { meta, pending } = checkBackup(copy, label);
    const key = restoreKey(meta, configured, label);
    say(
      `backup of ${meta.createdAt} by Herald ${meta.heraldVersion}: intact, key ${key.from === 'backup' ? 'included' : `from ${key.origin}`} and matching`,
    );

    const db = new (betterSqlite3())(copy);
    try {
      db.exec(`DROP TABLE ${META_TABLE}`);
      // The files sent with messages, when the backup has them (--with-files).
      const files = unpackFiles(db, work);
      if (files > 0) say(`restored ${files} files sent with messages`);
    } finally {
      db.close();
    }
    if (pending.length > 0) {
      say(`migrating forward: ${pending.join(', ')}`);
      const opened = await openDatabase(copy, { writeWorker: 'off' });
      try {
        // The backup's key (checked above) seals what an older version left in clear.
        await migrate(opened.sequelize, undefined, proxySealing(new SecretBox(key.key)));
      } finally {
        await opened.close();
      }
    }
    if (key.from === 'backup') {
      writeFileSync(join(work, KEY_FILE), `${key.key.toString('base64')}\n`, {
        mode: PRIVATE_FILE_MODE,
        flag: 'wx',
      });
    }

    // Once more, right before the swap: a Herald may have started while the copy was checked.
    refuseIfRunning(dataDir);
    let keptAside: string | null = null;
    if (hadData) {
      keptAside = `${dataDir}.before-restore-${stamp(now())}`;
      renameSync(dataDir, keptAside);
    } else if (existsSync(dataDir)) {
      rmdirSync(dataDir);
    }
    try {
      renameSync(work, dataDir);
    } catch (err) {
      if (keptAside) renameSync(keptAside, dataDir);
      throw err;
    }
    say(`restored into ${dataDir}${keptAside ? ` (the old content is in ${keptAside})` : ''}`);
    return {
      dataDir,
      file,
      backupCreatedAt: meta.createdAt,
      backupHeraldVersion: meta.heraldVersion,
      migrated: pending,
      keyFrom: key.from,
      keptAside,
    };
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
}
