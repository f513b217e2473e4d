/**
 * Vitest global setup: builds the worker threads (scripts/build-server.mjs WORKER_ENTRIES: the
 * SQLite write worker, the backup thread) from the sources once per run and names each in its
 * variable, so every Herald a test opens writes its hot path through the write worker and
 * makes its backups on the backup thread, as the bundles do (they find the workers beside
 * themselves; run from TypeScript there are none). Test files that spawn Herald processes
 * inherit the variables.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';

import { build } from 'esbuild';

import {
  BUNDLE_EXTERNALS,
  bundlePlugins,
  esmRequireBanner,
  workerEntryPoints,
} from '../../scripts/build-server.mjs';
import { WORKER_VARIABLES, type WorkerName } from '../../server/lib/worker-file';
import { ensureServerBundle } from './server-bundle';

export default async function setup(): Promise<() => void> {
  // Spawned Heralds run the production bundle (herald-bin.ts): built now if a source changed,
  // under the lock the bundle's own tests take, so no file waits for it or sees it half-written.
  await ensureServerBundle();
  // Inside the project, so the workers' own imports (better-sqlite3) resolve to node_modules.
  mkdirSync(path.resolve('out/test'), { recursive: true });
  const dir = mkdtempSync(path.resolve('out/test/workers-'));
  for (const [name, source] of Object.entries(workerEntryPoints())) {
    const outfile = path.join(dir, `${name}.mjs`);
    await build({
      entryPoints: [source],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // As the production bundle: the delivery thread holds Sequelize and its plugins' needs.
      external: [...BUNDLE_EXTERNALS],
      plugins: bundlePlugins,
      // As in the production bundle: pino, bundled in, requires Node's modules.
      banner: esmRequireBanner,
      sourcemap: 'inline',
      logLevel: 'warning',
    });
    process.env[WORKER_VARIABLES[name as WorkerName]] = outfile;
  }
  // `auto` leaves the worker off on a machine of fewer than four CPUs, such as CI's: the suite
  // writes through it wherever it runs (tests of the other modes set their own).
  process.env.HERALD_WRITE_WORKER ??= 'on';
  return () => rmSync(dir, { recursive: true, force: true });
}
