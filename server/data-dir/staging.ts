import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { createLogger } from '../lib/logger';

const log = createLogger('data-dir');

/** A staging folder older than this was left by a crash: the next one of its kind removes it. */
export const STALE_STAGING_MS = 24 * 3_600_000;

/**
 * A new owner-only folder in the data folder for a file on its way through (a backup download,
 * an uploaded database), named `prefix` and a random tail; the caller removes it. The data folder
 * rather than the system's temp folder: a tmpfs /tmp (a container run with --read-only
 * --tmpfs /tmp, many desktops) may be smaller than the database, and the copy of every sealed
 * secret stays beside the database it came from, owner-only, on the same disk.
 */
export function stagingFolder(dataDir: string, prefix: string): string {
  removeStale(dataDir, prefix);
  return mkdtempSync(join(dataDir, prefix));
}

function removeStale(dataDir: string, prefix: string): void {
  // File times are the file system's: the real clock, not an injected one.
  const before = Date.now() - STALE_STAGING_MS;
  for (const name of readdirSync(dataDir)) {
    if (!name.startsWith(prefix)) continue;
    const folder = join(dataDir, name);
    try {
      if (statSync(folder).mtimeMs < before) rmSync(folder, { recursive: true, force: true });
    } catch (err) {
      log.warn(`a stale staging folder (${folder}) could not be removed: ${String(err)}`);
    }
  }
}
