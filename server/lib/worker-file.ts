import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The environment variable that names each worker's compiled file, by the worker's name in
 * scripts/build-server.mjs WORKER_ENTRIES (the test suite's global setup sets them).
 */
export const WORKER_VARIABLES = {
  'write-worker': 'HERALD_WRITE_WORKER_FILE',
  'backup-worker': 'HERALD_BACKUP_WORKER_FILE',
  'delivery-worker': 'HERALD_DELIVERY_WORKER_FILE',
} as const;

export type WorkerName = keyof typeof WORKER_VARIABLES;

/**
 * Where a worker thread's compiled entry is (scripts/build-server.mjs WORKER_ENTRIES): the file
 * the environment variable names (the test suite builds the workers once per run), else
 * `<name>.js` beside the bundle that asks (out/server, out/main: after bundling this module's
 * URL is its bundle's). Run from the TypeScript sources there is none: null, and the caller
 * does the work on its own thread.
 */
export function workerFile(name: WorkerName): string | null {
  const named = process.env[WORKER_VARIABLES[name]];
  if (named) return named;
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), `${name}.js`);
  return existsSync(beside) ? beside : null;
}
