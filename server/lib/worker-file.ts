import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where a worker thread's compiled entry is (scripts/build-server.mjs WORKER_ENTRIES): the file
 * the environment variable names (the test suite builds the workers once per run), else
 * `<name>.js` beside the bundle that asks (out/server, out/main: after bundling this module's
 * URL is its bundle's). Run from the TypeScript sources there is none: null, and the caller
 * does the work on its own thread.
 */
export function workerFile(name: string, variable: string): string | null {
  const named = process.env[variable];
  if (named) return named;
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), `${name}.js`);
  return existsSync(beside) ? beside : null;
}
