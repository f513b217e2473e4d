import { closeSync, openSync, readSync } from 'node:fs';

import type BetterSqlite3 from 'better-sqlite3';

import { keyFingerprint } from '../../crypto/key-fingerprint';
import { isServerKeyLength } from '../../crypto/server-key';
import { MIGRATION_NAMES } from '../../db/migrate';
import {
  FORMAT,
  FORMAT_VERSION,
  META_TABLE,
  appliedMigrations,
  contentChecksum,
  readMeta,
  type BackupMeta,
} from './backup-format';
import { BackupRefused } from './backup-refused';
import { betterSqlite3 } from '../../db/better-sqlite3';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\u0000', 'latin1');

/** What a checked backup holds: its metadata and the migrations a restore will run on it. */
export interface CheckedBackup {
  meta: BackupMeta;
  /** Migrations this Herald knows that the backup lacks, applied by the restore. */
  pending: string[];
}

/** Enough of a fingerprint to tell two apart in a message. */
const short = (fingerprint: string) => `${fingerprint.split(':').at(-1)?.slice(0, 12) ?? ''}…`;

function refuseUnlessSqlite(file: string, label: string): void {
  const head = Buffer.alloc(SQLITE_MAGIC.length);
  let read = 0;
  try {
    const fd = openSync(file, 'r');
    try {
      read = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new BackupRefused(
      `${label} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  if (read < SQLITE_MAGIC.length || !head.equals(SQLITE_MAGIC)) {
    throw new BackupRefused(`${label} is not a Herald backup (it is not a SQLite file)`);
  }
}

/**
 * Checks a copy of a backup, in this order: a SQLite file, intact (`PRAGMA integrity_check`),
 * a Herald backup of a format this version reads, its content matching its checksum, and no
 * migration this Herald does not know. Throws BackupRefused with what is wrong.
 */
export function checkBackup(copy: string, label: string): CheckedBackup {
  refuseUnlessSqlite(copy, label);
  let db: BetterSqlite3.Database;
  try {
    db = new (betterSqlite3())(copy, { fileMustExist: true });
  } catch (err) {
    throw new BackupRefused(`${label} cannot be opened: ${(err as Error).message}`);
  }
  try {
    let integrity: string[];
    try {
      integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map(
        (r) => r.integrity_check,
      );
    } catch (err) {
      throw new BackupRefused(`${label} is damaged: ${(err as Error).message}`);
    }
    if (integrity.length !== 1 || integrity[0] !== 'ok') {
      throw new BackupRefused(
        `${label} is damaged (SQLite's integrity check: ${integrity.slice(0, 3).join('; ')})`,
      );
    }
    const meta = readMeta(db);
    if (!meta || meta.format !== FORMAT) {
      throw new BackupRefused(
        `${label} is a SQLite file but not a Herald backup (no ${META_TABLE} table): make one with npm run backup`,
      );
    }
    if (!Number.isInteger(meta.formatVersion) || meta.formatVersion > FORMAT_VERSION) {
      throw new BackupRefused(
        `${label} was made by a newer Herald (${meta.heraldVersion}, backup format ${meta.formatVersion}; this one reads ${FORMAT_VERSION}): restore it with that version`,
      );
    }
    let checksum: string;
    try {
      checksum = contentChecksum(db);
    } catch (err) {
      throw new BackupRefused(`${label} is damaged: ${(err as Error).message}`);
    }
    if (checksum !== meta.checksum) {
      throw new BackupRefused(
        `${label} is damaged: its content does not match its checksum (it changed after it was made)`,
      );
    }
    const applied = appliedMigrations(db);
    const known = new Set(MIGRATION_NAMES);
    const unknown = applied.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new BackupRefused(
        `${label} was made by a newer Herald (${meta.heraldVersion}: migration ${unknown.join(', ')} is unknown here): restore it with that version or a later one`,
      );
    }
    const have = new Set(applied);
    return { meta, pending: MIGRATION_NAMES.filter((name) => !have.has(name)) };
  } finally {
    db.close();
  }
}

/** Where the key for a restore comes from. */
export type RestoreKey =
  { from: 'backup'; key: Buffer } | { from: 'environment'; key: Buffer; origin: string };

/**
 * The key the restored folder will run with: the backup's own, or the configured one
 * (HERALD_SECRET_KEY, HERALD_SECRET_KEY_FILE) for a backup made without it. Either must match
 * the fingerprint the backup carries; a configured key that differs from the backup's is
 * refused too, since the restored Herald would start with it and open nothing.
 */
export function restoreKey(
  meta: BackupMeta,
  configured: { key: Buffer; origin: string } | null,
  label: string,
): RestoreKey {
  const matches = (key: Buffer) =>
    meta.keyFingerprint === '' || keyFingerprint(key) === meta.keyFingerprint;
  if (meta.key) {
    if (!isServerKeyLength(meta.key) || !matches(meta.key)) {
      throw new BackupRefused(
        `${label} is damaged: the key it carries does not match its fingerprint (${short(meta.keyFingerprint)})`,
      );
    }
    if (configured && !matches(configured.key)) {
      throw new BackupRefused(
        `${configured.origin} is set here, but it is not the key of ${label} (backup: ${short(meta.keyFingerprint)}, ${configured.origin}: ${short(keyFingerprint(configured.key))}). The restored Herald would start with it and open none of its secrets: unset it, or set it to the backup's key. Nothing was changed.`,
      );
    }
    return configured ? { from: 'environment', ...configured } : { from: 'backup', key: meta.key };
  }
  if (!configured) {
    throw new BackupRefused(
      `${label} was made without its key (--without-key): set HERALD_SECRET_KEY (or HERALD_SECRET_KEY_FILE) to the server key of the Herald it came from and run the restore again. Nothing was changed.`,
    );
  }
  if (!matches(configured.key)) {
    throw new BackupRefused(
      `${configured.origin} is not the key ${label} was sealed with (backup: ${short(meta.keyFingerprint)}, ${configured.origin}: ${short(keyFingerprint(configured.key))}): set it to the server key of the Herald the backup came from. Nothing was changed.`,
    );
  }
  return { from: 'environment', ...configured };
}
