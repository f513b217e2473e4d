/**
 * One build at a time across the test files that need a bundle. Test files run side by side
 * (vitest.config.ts maxWorkers), and a build first deletes its output folder: two files building
 * at once broke each other's bundle. The first to come builds under a lock file in out/; the
 * others wait, then find the bundle up to date and leave it alone.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Whether the process that wrote the lock still runs (a killed run leaves its lock behind). */
function holderAlive(lock: string): boolean {
  try {
    process.kill(Number(readFileSync(lock, 'utf8')), 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user. ENOENT: the lock is gone, so nobody holds it.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs `build` (which builds only what is stale) holding out/.<name>-build.lock. */
export async function withBuildLock<T>(name: string, build: () => Promise<T>): Promise<T> {
  const lock = path.resolve('out', `.${name}-build.lock`);
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      writeFileSync(lock, String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!holderAlive(lock)) rmSync(lock, { force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await build();
  } finally {
    rmSync(lock, { force: true });
  }
}
