import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { secretVariableSet } from '../../config/secret-variable';
import { parseServerKeySource } from '../../config/server-key-source';
import { readServerKey } from '../../crypto/server-key';
import { DB_FILE } from '../../data-dir/permissions';
import { groupDigits } from '../../lib/progress';
import { appendCliAuditEntry } from '../audit/audit-file';
import { BackupRefused } from './backup-refused';
import { tell, type BackupObserver } from './backup-observer';
import { writeBackup } from './make-backup';
import { postgresBackupAdvice, postgresRestoreAdvice } from './postgres-advice';
import { restoreBackup } from './restore';

const BACKUP_USAGE = `Usage: herald backup --out FILE [--data-dir DIR] [--without-key] [--with-files]
       (npm run backup -- --out FILE from a checkout)
  --out FILE      where the backup goes (written 0600; replaced if it exists; folders it
                  names that do not exist are made, 0700)
  --data-dir DIR  the data folder (HERALD_DATA_DIR, default ./data); Herald may be running on it
  --without-key   leave the server key out (an off-site copy): restoring it then needs
                  HERALD_SECRET_KEY or HERALD_SECRET_KEY_FILE set to the key
  --with-files    include the files sent with messages (attachments/); by default they
  --without-files are left out (the default: kept a few days, they can make a backup many
                  times the database's size), with their rows, and the backup says so
The key is read as Herald reads it: HERALD_SECRET_KEY, HERALD_SECRET_KEY_FILE or the folder's secret.key.
On PostgreSQL (HERALD_DATABASE_URL or HERALD_DATABASE_URL_FILE set) use pg_dump instead; this prints the line.`;

const RESTORE_USAGE = `Usage: herald restore FILE [--data-dir DIR] [--force]
       (npm run restore -- FILE from a checkout)
  FILE            a backup made by herald backup, Settings → Backup or a scheduled backup
  --data-dir DIR  the data folder to fill (HERALD_DATA_DIR, default ./data); Herald must not run there
  --force         replace a folder that holds data (its content is kept aside, renamed)
A backup made with --without-key needs HERALD_SECRET_KEY or HERALD_SECRET_KEY_FILE set to its key.
The file is checked (integrity, checksum, version, key) before anything is changed.`;

export interface BackupCliContext {
  env?: NodeJS.ProcessEnv;
  version: string;
  /** Told when the backup or restore is done (an audit log). */
  observer?: BackupObserver;
}

const warn = (message: string) => process.stderr.write(`${message}\n`);

function dataDirOf(value: string | undefined, env: NodeJS.ProcessEnv): string {
  return resolve(value ?? env.HERALD_DATA_DIR ?? 'data');
}

/**
 * The key as Herald would read it, to put in the backup and to check against the database's
 * fingerprint. Left out, a key that cannot be read does not stop the backup.
 */
function backupKey(dataDir: string, env: NodeJS.ProcessEnv, withoutKey: boolean): Buffer | null {
  try {
    const source = parseServerKeySource(env.HERALD_SECRET_KEY, env.HERALD_SECRET_KEY_FILE);
    return readServerKey(source, dataDir)?.key ?? null;
  } catch (err) {
    if (withoutKey) return null;
    throw new BackupRefused((err as Error).message);
  }
}

export async function runBackupCli(argv: string[], ctx: BackupCliContext): Promise<number> {
  const env = ctx.env ?? process.env;
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        out: { type: 'string' },
        'data-dir': { type: 'string' },
        'without-key': { type: 'boolean' },
        'with-files': { type: 'boolean' },
        'without-files': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
    if (values['with-files'] && values['without-files']) {
      throw new Error('give --with-files or --without-files, not both');
    }
    if (!values.help && !values.out) throw new Error('give --out FILE: where the backup goes');
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${BACKUP_USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(BACKUP_USAGE);
    return 0;
  }
  if (secretVariableSet(env, 'HERALD_DATABASE_URL')) {
    console.error(postgresBackupAdvice());
    return 1;
  }
  const dataDir = dataDirOf(values['data-dir'], env);
  const out = resolve(values.out as string);
  const withoutKey = values['without-key'] === true;
  try {
    const key = backupKey(dataDir, env, withoutKey);
    process.stderr.write(`backing up ${dataDir}\n`);
    const made = await writeBackup({
      dbFile: resolve(dataDir, DB_FILE),
      out,
      key,
      withoutKey,
      withFiles: values['with-files'] === true,
      heraldVersion: ctx.version,
    });
    console.log(
      `Backup written: ${made.file} (${groupDigits(made.bytes)} bytes, mode 0600), ` +
        (made.includesKey
          ? 'with the server key: keep it as safe as the data folder itself.'
          : 'without the server key: restoring it needs HERALD_SECRET_KEY set to the key.'),
    );
    const { files } = made;
    console.log(
      files.included
        ? `Files sent with messages: ${files.count} included (${groupDigits(files.bytes)} bytes).`
        : `Files sent with messages: not included (${files.count} left out, ${groupDigits(files.bytes)} bytes); give --with-files to include them.`,
    );
    recordInAudit(warn, () =>
      appendCliAuditEntry(resolve(dataDir, DB_FILE), {
        action: 'backup.create',
        targetType: 'backup',
        targetName: made.file,
      }),
    );
    const { observer } = ctx;
    if (observer?.backupMade)
      tell(() => observer.backupMade?.({ ...made, by: 'command-line' }), warn);
    return 0;
  } catch (err) {
    const why =
      err instanceof BackupRefused ? err.message : `the backup failed: ${(err as Error).message}`;
    console.error(`${why}\nNo backup was written.`);
    return 1;
  }
}

export async function runRestoreCli(argv: string[], ctx: BackupCliContext): Promise<number> {
  const env = ctx.env ?? process.env;
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
    if (!parsed.values.help && parsed.positionals.length !== 1) {
      throw new Error(`give the backup file (${parsed.positionals.length} files given)`);
    }
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${RESTORE_USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(RESTORE_USAGE);
    return 0;
  }
  if (secretVariableSet(env, 'HERALD_DATABASE_URL')) {
    console.error(postgresRestoreAdvice());
    return 1;
  }
  try {
    const done = await restoreBackup({
      file: parsed.positionals[0],
      dataDir: dataDirOf(parsed.values['data-dir'], env),
      force: parsed.values.force === true,
      env,
      progress: (line) => process.stderr.write(`  ${line}\n`),
    });
    console.log(
      [
        `Restored ${done.file} into ${done.dataDir}.`,
        done.migrated.length > 0
          ? `Migrated forward from Herald ${done.backupHeraldVersion} (${done.migrated.length} migration(s)).`
          : '',
        done.keptAside ? `The folder's previous content is in ${done.keptAside}.` : '',
        done.keyFrom === 'backup'
          ? 'The server key came with the backup (secret.key).'
          : 'Start Herald there with the same HERALD_SECRET_KEY or HERALD_SECRET_KEY_FILE as now.',
        `Start it with: herald start --data-dir ${done.dataDir}`,
      ]
        .filter(Boolean)
        .join('\n'),
    );
    // Into the restored folder's own log: that is the Herald the restore concerns.
    recordInAudit(warn, () =>
      appendCliAuditEntry(resolve(done.dataDir, DB_FILE), {
        action: 'backup.restore',
        targetType: 'backup',
        targetName: done.file,
      }),
    );
    const { observer } = ctx;
    if (observer?.restoreDone) tell(() => observer.restoreDone?.(done), warn);
    return 0;
  } catch (err) {
    if (err instanceof BackupRefused) {
      console.error(err.message);
    } else {
      console.error(
        `the restore failed: ${(err as Error).message}\nThe data folder was not changed.`,
      );
    }
    return 1;
  }
}

/** An audit entry that cannot be written does not undo a backup or a restore that succeeded. */
function recordInAudit(warn: (message: string) => void, record: () => unknown): void {
  try {
    record();
  } catch (err) {
    warn(`the audit log could not record this: ${(err as Error).message}`);
  }
}
