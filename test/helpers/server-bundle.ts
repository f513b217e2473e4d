/**
 * The production bundle (out/server) for the test files that run it. Test files run side by side
 * (vitest.config.ts maxWorkers), and a build first deletes out/server: two files building at once
 * broke each other's bundle. So the first to come builds it, under a lock file in out/, and the
 * others find it up to date (scripts/build-server.mjs serverBuildIsStale) and leave it alone.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { ensureServerBuilt } from '../../scripts/build-server.mjs';

const LOCK = path.resolve('out', '.server-build.lock');

/** Whether the process that wrote the lock still runs (a killed run leaves its lock behind). */
function lockHolderAlive(): boolean {
  try {
    process.kill(Number(readFileSync(LOCK, 'utf8')), 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user. ENOENT: the lock is gone, so nobody holds it.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Builds out/server unless it is up to date, one test process at a time. */
export async function ensureServerBundle(): Promise<void> {
  mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      closeSync(openSync(LOCK, 'wx'));
      writeFileSync(LOCK, String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!lockHolderAlive()) rmSync(LOCK, { force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    await ensureServerBuilt();
  } finally {
    rmSync(LOCK, { force: true });
  }
}
