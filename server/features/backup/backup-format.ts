import { createHash } from 'node:crypto';

import type BetterSqlite3 from 'better-sqlite3';

/**
 * A Herald backup is a SQLite database: a consistent copy of herald.db (better-sqlite3's online
 * backup) plus one table of its own, `herald_backup`, whose rows say what the file is
 * (docs/running-for-a-team.md, "Backup and restore"):
 *
 *   format          "herald-backup"
 *   format_version  "1": what restore knows how to read; a higher one is a newer Herald's
 *   herald_version  the version that made it
 *   last_migration  the newest migration the copy has; restore migrates an older one forward
 *   created_at      ISO time
 *   key_fingerprint the server key's fingerprint (crypto/key-fingerprint.ts), always
 *   key             the server key, base64, unless made with --without-key
 *   checksum        sha256 over the schema and every row of every table but this one
 *
 * A restore checks `PRAGMA integrity_check` (the file's structure) and the checksum (its
 * content: a flipped bit inside a row passes the integrity check), then the key against the
 * fingerprint, all on a copy, before anything is changed.
 */

export const FORMAT = 'herald-backup';
export const FORMAT_VERSION = 1;
export const META_TABLE = 'herald_backup';
/** What scheduled backups and the console's download are named with. */
export const BACKUP_EXTENSION = '.herald-backup';

export interface BackupMeta {
  format: string;
  formatVersion: number;
  heraldVersion: string;
  lastMigration: string | null;
  createdAt: string;
  keyFingerprint: string;
  /** The server key; null in a backup made without it. */
  key: Buffer | null;
  checksum: string;
}

/** The copy's tables that the checksum covers: every real table but the metadata's own. */
function checkedTables(db: BetterSqlite3.Database): string[] {
  const rows = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name <> ? ORDER BY name")
    .all(META_TABLE) as Array<{ name: string; sql: string | null }>;
  // A virtual table's rows live in its shadow tables, which are real tables and are covered.
  return rows.filter((r) => !/^CREATE VIRTUAL TABLE/i.test(r.sql ?? '')).map((r) => r.name);
}

/** One value as text with its type, so 1, '1' and x'31' hash differently. */
function valueText(value: unknown): string {
  if (value === null) return 'n';
  if (typeof value === 'bigint') return `i${value}`;
  if (typeof value === 'number') return `f${value}`;
  if (typeof value === 'string') return `s${value.length}:${value}`;
  if (Buffer.isBuffer(value)) return `b${value.toString('hex')}`;
  return `?${String(value)}`;
}

/** sha256 over the schema and every row, in the order the file stores them. */
export function contentChecksum(db: BetterSqlite3.Database): string {
  const hash = createHash('sha256');
  const schema = db
    .prepare(
      'SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name <> ? ORDER BY type, name',
    )
    .all(META_TABLE) as Array<Record<string, string | null>>;
  for (const entry of schema) hash.update(`${JSON.stringify(entry)}\n`);
  for (const table of checkedTables(db)) {
    hash.update(`table ${table}\n`);
    const rows = db
      .prepare(`SELECT * FROM "${table.replace(/"/g, '""')}"`)
      .raw(true)
      .safeIntegers(true);
    for (const row of rows.iterate() as Iterable<unknown[]>) {
      hash.update(`${row.map(valueText).join('\u0000')}\n`);
    }
  }
  return `sha256:${hash.digest('hex')}`;
}

export function writeMeta(db: BetterSqlite3.Database, meta: BackupMeta): void {
  db.exec(`CREATE TABLE ${META_TABLE} (name TEXT PRIMARY KEY, value TEXT)`);
  const insert = db.prepare(`INSERT INTO ${META_TABLE} (name, value) VALUES (?, ?)`);
  const rows: Array<[string, string | null]> = [
    ['format', meta.format],
    ['format_version', String(meta.formatVersion)],
    ['herald_version', meta.heraldVersion],
    ['last_migration', meta.lastMigration],
    ['created_at', meta.createdAt],
    ['key_fingerprint', meta.keyFingerprint],
    ['key', meta.key ? meta.key.toString('base64') : null],
    ['checksum', meta.checksum],
  ];
  db.transaction(() => rows.forEach((row) => insert.run(...row)))();
}

/** The metadata, or null when the file has no such table (not a Herald backup). */
export function readMeta(db: BetterSqlite3.Database): BackupMeta | null {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(META_TABLE);
  if (!table) return null;
  const rows = db.prepare(`SELECT name, value FROM ${META_TABLE}`).all() as Array<{
    name: string;
    value: string | null;
  }>;
  const get = (name: string) => rows.find((r) => r.name === name)?.value ?? null;
  return {
    format: get('format') ?? '',
    formatVersion: Number(get('format_version')),
    heraldVersion: get('herald_version') ?? 'unknown',
    lastMigration: get('last_migration'),
    createdAt: get('created_at') ?? '',
    keyFingerprint: get('key_fingerprint') ?? '',
    key: get('key') === null ? null : Buffer.from(get('key') as string, 'base64'),
    checksum: get('checksum') ?? '',
  };
}

/** The migrations a copy has applied, in the order they ran; empty without the table. */
export function appliedMigrations(db: BetterSqlite3.Database): string[] {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!table) return [];
  return (
    db.prepare('SELECT name FROM schema_migrations ORDER BY name').all() as Array<{ name: string }>
  ).map((r) => r.name);
}
