import { existsSync, mkdtempSync, statSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DB_FILE } from './permissions';

/** Free bytes on the file system holding `dir`, as statfs(2) counts them for this user. */
export type FreeSpace = (dir: string) => number;

const freeSpace: FreeSpace = (dir) => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};

/** The bytes a copy of the data folder's database takes: herald.db and its -wal, if any. */
export function databaseBytes(dataDir: string): number {
  const file = join(dataDir, DB_FILE);
  const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
  return size(file) + size(`${file}-wal`);
}

/** A copy grows while it is worked on (an import's rows, a migration): room for that too. */
const HEADROOM = (bytes: number) => Math.ceil(bytes * 0.1) + 64 * 1024 * 1024;

const mb = (bytes: number) => `${Math.ceil(bytes / (1024 * 1024)).toLocaleString('en')} MB`;

/**
 * A new scratch folder for a copy of `bytes` of database: in the system's temp folder
 * (TMPDIR) when it has room, else inside `dataDir` (hidden, on the file system that already
 * holds the database), else an error that says how much room each had. Years of history make
 * a database of gigabytes, and the temp folder is often a RAM-backed tmpfs of a few: filling
 * it would fail the copy half way and starve the machine's memory. The caller removes the
 * folder. Where statfs cannot tell (an unusual file system), the temp folder is used.
 */
export function scratchFolderFor(
  prefix: string,
  bytes: number,
  dataDir: string,
  free: FreeSpace = freeSpace,
): string {
  const need = bytes + HEADROOM(bytes);
  const seen: string[] = [];
  for (const [dir, name] of [
    [tmpdir(), prefix],
    [dataDir, `.${prefix}`],
  ] as const) {
    let room: number;
    try {
      room = free(dir);
    } catch {
      room = Infinity;
    }
    if (room >= need) return mkdtempSync(join(dir, name));
    seen.push(`${dir} has ${mb(room)} free`);
  }
  throw new Error(
    `not enough free space for a working copy of the database (${mb(bytes)}, ${mb(need)} with room to work): ${seen.join(', ')}; set TMPDIR to a folder with room, or free some`,
  );
}
