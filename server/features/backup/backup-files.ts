import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type BetterSqlite3 from 'better-sqlite3';

import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../data-dir/permissions';

/**
 * The files sent with messages (issue 43 §2) in a backup. A backup is one SQLite file, so the
 * files travel as a table of it, `herald_backup_files` (id, bytes), covered by the checksum
 * like every other table; restore writes them back into the data folder's `attachments/` and
 * drops the table.
 *
 * Without them (the default: a backup stays the size of the database, and these files are
 * short-lived copies, kept 7 days by default, of what was already delivered), the copy's
 * `attachments` rows are removed too, so a restored Herald never lists or links a file it
 * does not have.
 */
export const FILES_TABLE = 'herald_backup_files';

export interface FilesInBackup {
  count: number;
  bytes: number;
}

const hasTable = (db: BetterSqlite3.Database, name: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
  undefined;

/**
 * Puts the stored files into the copy (`include`), or takes their rows out of it. Answers
 * what is included, or what was left out.
 */
export function packFiles(
  copy: BetterSqlite3.Database,
  dataDir: string,
  include: boolean,
): FilesInBackup {
  if (!hasTable(copy, 'attachments')) return { count: 0, bytes: 0 };
  const rows = copy.prepare('SELECT id, size FROM attachments').all() as Array<{
    id: string;
    size: number;
  }>;
  if (!include) {
    copy.exec('DELETE FROM attachments');
    return { count: rows.length, bytes: rows.reduce((sum, r) => sum + Number(r.size), 0) };
  }
  copy.exec(`CREATE TABLE ${FILES_TABLE} (id TEXT PRIMARY KEY, bytes BLOB NOT NULL)`);
  const insert = copy.prepare(`INSERT INTO ${FILES_TABLE} (id, bytes) VALUES (?, ?)`);
  const forget = copy.prepare('DELETE FROM attachments WHERE id = ?');
  let count = 0;
  let bytes = 0;
  for (const row of rows) {
    const path = join(dataDir, 'attachments', row.id);
    // A file housekeeping removed since the rows were copied: its row goes too.
    if (!/^[A-Za-z0-9_-]+$/.test(row.id) || !existsSync(path)) {
      forget.run(row.id);
      continue;
    }
    const content = readFileSync(path);
    insert.run(row.id, content);
    count += 1;
    bytes += content.length;
  }
  return { count, bytes };
}

/** Writes a backup's files into the folder being restored and drops their table. */
export function unpackFiles(db: BetterSqlite3.Database, dataDir: string): number {
  if (!hasTable(db, FILES_TABLE)) return 0;
  const folder = join(dataDir, 'attachments');
  mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
  const rows = db.prepare(`SELECT id, bytes FROM ${FILES_TABLE}`).all() as Array<{
    id: string;
    bytes: Buffer;
  }>;
  for (const row of rows) {
    if (!/^[A-Za-z0-9_-]+$/.test(row.id)) continue;
    writeFileSync(join(folder, row.id), row.bytes, { mode: PRIVATE_FILE_MODE });
  }
  db.exec(`DROP TABLE ${FILES_TABLE}`);
  return rows.length;
}
