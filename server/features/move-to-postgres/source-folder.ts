import { copyFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

import type BetterSqlite3 from 'better-sqlite3';

import { runningHeraldPid } from '../../data-dir/lock';
import { DB_FILE } from '../../data-dir/permissions';
import { databaseBytes, scratchFolderFor, type FreeSpace } from '../../data-dir/scratch-folder';
import { MIGRATION_NAMES } from '../../db/migrate';
import { MoveRefused } from './move-refused';
import { betterSqlite3 } from '../../db/better-sqlite3';

/** A read-only view of a SQLite data folder's database, taken from a copy of its files. */
export interface SourceSnapshot {
  dataDir: string;
  db: BetterSqlite3.Database;
  /** Deletes the copy; the data folder itself was never opened by SQLite. */
  close(): void;
}

/**
 * Copies the folder's herald.db (and its -wal, if a Herald was killed before it could fold the
 * log back in) into a scratch folder and opens the copy. SQLite opening the original, even
 * read-only, would leave -wal and -shm files in the data folder; a copy changes nothing there.
 * The folder must not be in use: rows a running Herald writes after the copy would be left
 * behind.
 */
export function openSourceSnapshot(dataDir: string, free?: FreeSpace): SourceSnapshot {
  if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) {
    throw new MoveRefused(
      `${dataDir} is not a folder: give Herald's data folder (the one holding herald.db)`,
    );
  }
  const file = join(dataDir, DB_FILE);
  if (!existsSync(file) || statSync(file).size === 0) {
    throw new MoveRefused(
      `${dataDir} is not a Herald data folder: it holds no ${DB_FILE} (give the folder Herald was started with, --data-dir or HERALD_DATA_DIR)`,
    );
  }
  refuseIfInUse(dataDir);
  const wal = `${file}-wal`;
  let scratch: string;
  try {
    scratch = scratchFolderFor('herald-move-', databaseBytes(dataDir), dataDir, free);
  } catch (err) {
    throw new MoveRefused(err instanceof Error ? err.message : String(err));
  }
  const copy = join(scratch, DB_FILE);
  let db: BetterSqlite3.Database | undefined;
  try {
    copyFileSync(file, copy);
    if (existsSync(wal)) copyFileSync(wal, `${copy}-wal`);
    // Loaded first: a driver that cannot load is no sign of a file that is not SQLite.
    const Sqlite = betterSqlite3();
    try {
      db = new Sqlite(copy, { fileMustExist: true });
      // Reading the schema is what tells a SQLite file from any other file.
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      throw new MoveRefused(
        `${file} is not a SQLite database (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    checkMigrations(db, dataDir);
  } catch (err) {
    db?.close();
    rmSync(scratch, { recursive: true, force: true });
    throw err;
  }
  const opened = db;
  return {
    dataDir,
    db: opened,
    close() {
      opened.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** herald.lock names the pid of a running Herald; a lock left by a dead process is ignored. */
function refuseIfInUse(dataDir: string): void {
  // The data folder's own lock decides, as for a second Herald (data-dir/lock.ts).
  const pid = runningHeraldPid(dataDir);
  if (pid === null) return;
  throw new MoveRefused(
    `Herald is running on ${dataDir} (pid ${pid}): stop it first, so that nothing it accepts after the copy is left behind`,
  );
}

/** The source must be exactly as far as this code: older folders are upgraded by Herald itself. */
function checkMigrations(db: BetterSqlite3.Database, dataDir: string): void {
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!hasTable) {
    throw new MoveRefused(
      `${join(dataDir, DB_FILE)} is not a Herald database (it has no schema_migrations table)`,
    );
  }
  const applied = new Set(
    (db.prepare('SELECT name FROM schema_migrations').all() as Array<{ name: string }>).map(
      (r) => r.name,
    ),
  );
  const known = new Set(MIGRATION_NAMES);
  const newer = [...applied].filter((name) => !known.has(name));
  if (newer.length > 0) {
    throw new MoveRefused(
      `${dataDir} was last used by a newer Herald (migration ${newer.join(', ')} is unknown here): move it with that version`,
    );
  }
  const missing = MIGRATION_NAMES.filter((name) => !applied.has(name));
  if (missing.length > 0) {
    throw new MoveRefused(
      `${dataDir} was last used by an older Herald (${missing.length} migration(s) not applied, from ${missing[0]}): ` +
        'start this version of Herald on it once (it upgrades the folder), stop it, then run this again',
    );
  }
}
