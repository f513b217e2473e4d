/**
 * Vitest global setup: builds the SQLite write worker (server/db/write-worker) from the
 * sources once per run and names it in HERALD_WRITE_WORKER_FILE, so every Herald a test opens
 * writes its hot path through the worker (the bundle finds it beside itself; run from
 * TypeScript there is none). Test files that spawn Herald processes inherit the variables.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';

import { build } from 'esbuild';

import { esmRequireBanner } from '../../scripts/build-server.mjs';

export default async function setup(): Promise<() => void> {
  // Inside the project, so the worker's own imports (better-sqlite3) resolve to node_modules.
  mkdirSync(path.resolve('out/test'), { recursive: true });
  const dir = mkdtempSync(path.resolve('out/test/write-worker-'));
  const outfile = path.join(dir, 'write-worker.mjs');
  await build({
    entryPoints: [path.resolve('server/queue/store/write-worker.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'sqlite3', 'pg', 'pg-hstore'],
    // As in the production bundle: pino, bundled in, requires Node's modules.
    banner: esmRequireBanner,
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  process.env.HERALD_WRITE_WORKER_FILE = outfile;
  // `auto` leaves the worker off on a machine of fewer than four CPUs, such as CI's: the suite
  // writes through it wherever it runs (tests of the other modes set their own).
  process.env.HERALD_WRITE_WORKER ??= 'on';
  return () => rmSync(dir, { recursive: true, force: true });
}
