import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The database file inside the data folder. */
export const DB_FILE = 'herald.db';

/**
 * Files of the data folder that only Herald's user may read: the database with its WAL and
 * shared-memory files, the master key and the lock. Other files a user keeps there are theirs.
 */
export const PRIVATE_FILES = [
  DB_FILE,
  `${DB_FILE}-wal`,
  `${DB_FILE}-shm`,
  `${DB_FILE}-journal`,
  'secret.key',
  'herald.lock',
] as const;

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes the data folder and its private files owner-only. Runs on every start, so folders made
 * by older versions (0755 folder, 0644 files) are tightened too. A chmod that the file system
 * refuses (a FAT or network mount) is not fatal: the data is still usable.
 */
export function restrictDataDir(dataDir: string): void {
  tryChmod(dataDir, PRIVATE_DIR_MODE);
  for (const name of PRIVATE_FILES) {
    const file = join(dataDir, name);
    if (existsSync(file) && statSync(file).isFile()) tryChmod(file, PRIVATE_FILE_MODE);
  }
}

/**
 * Creates the database file empty and owner-only when it is missing. SQLite creates its WAL and
 * SHM files with the database file's permissions, so they are born 0600 as well.
 */
export function precreateDatabase(dataDir: string): string {
  const file = join(dataDir, DB_FILE);
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  tryChmod(file, PRIVATE_FILE_MODE);
  return file;
}

function tryChmod(path: string, mode: number): void {
  if (process.platform === 'win32') return;
  try {
    chmodSync(path, mode);
  } catch {
    // See restrictDataDir: permissions are best effort where the file system has none.
  }
}
