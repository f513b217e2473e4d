import {
  chmodSync,
  closeSync,
  copyFileSync,
  constants,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';

import { decodeRawKey } from '../../config/server-key-source';
import { PRIVATE_FILE_MODE } from '../../data-dir/permissions';

/**
 * The new key waits beside the key file, in `<key file>.new`, until the database is re-sealed
 * with it: a rotation cut off after its commit leaves the key there, and the next
 * `herald rotate-key` puts it in place (rotate-key.ts).
 */
export const pendingFileOf = (keyFile: string) => `${keyFile}.new`;

/** When, in a file name: an ISO time without the characters Windows refuses (as restore's). */
export const stamp = (date: Date) => date.toISOString().replace(/[:.]/g, '-');

/** The file the old key is kept in: `secret.key.2026-11-28T05-38-12-000Z`. */
export const keptFileOf = (keyFile: string, at: Date) => `${keyFile}.${stamp(at)}`;

/** A key as secret.key holds it: base64 and a newline. */
export const keyText = (key: Buffer) => `${key.toString('base64')}\n`;

/** The key a file holds, or null when it is missing or not a key. */
export function readKeyFile(file: string): Buffer | null {
  if (!existsSync(file)) return null;
  return decodeRawKey(readFileSync(file, 'utf8'));
}

/**
 * Writes a new owner-only file and flushes it to disk before returning, so a key the database
 * is about to depend on is never only in the page cache. Refuses to replace a file.
 */
export function writeKeyFile(file: string, key: Buffer): void {
  const fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  try {
    writeSync(fd, keyText(key));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** A copy of the key file under a dated name, owner-only; never replaces a file. */
export function keepOldKeyFile(keyFile: string, at: Date): string {
  const kept = keptFileOf(keyFile, at);
  copyFileSync(keyFile, kept, constants.COPYFILE_EXCL);
  chmodSync(kept, PRIVATE_FILE_MODE);
  return kept;
}

/** Puts the pending key in place of the key file in one rename. */
export function installPendingKey(keyFile: string): void {
  const pending = pendingFileOf(keyFile);
  chmodSync(pending, PRIVATE_FILE_MODE);
  renameSync(pending, keyFile);
}

export function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
