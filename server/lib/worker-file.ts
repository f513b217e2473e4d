import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The environment variable that names each worker's compiled file, by the worker's name in
 * scripts/build-server.mjs WORKER_ENTRIES: for developers, and for tests that start a broken
 * worker on purpose. The packaged desktop app ignores them (main/packaged-environment.ts).
 */
export const WORKER_VARIABLES = {
  'write-worker': 'HERALD_WRITE_WORKER_FILE',
  'backup-worker': 'HERALD_BACKUP_WORKER_FILE',
  'delivery-worker': 'HERALD_DELIVERY_WORKER_FILE',
} as const;

export type WorkerName = keyof typeof WORKER_VARIABLES;

/** How to start a worker thread: the file Node runs, and the arguments it gets. */
export interface WorkerEntry {
  file: string;
  /** For a run from the sources: the TypeScript entry the start-up file loads. */
  argv: string[];
}

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Whether tsx can be loaded here: a development install, which is what runs the sources. The
 * start-up file (server/workers/from-sources.mjs) registers it in the new thread, since Node 20
 * does not pass a parent's `--import tsx` on to a worker's loader.
 */
function tsxAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve('tsx/esm/api');
    return true;
  } catch {
    return false;
  }
}

/** What {@link locateWorker} looks at, injected so each branch is tested. */
export interface WorkerPlace {
  env: Record<string, string | undefined>;
  /** The folder of this module: server/lib from the sources, the bundle's folder once built. */
  here: string;
  /** Whether this module runs from its TypeScript source. */
  fromSources: boolean;
  exists(file: string): boolean;
  tsxAvailable(): boolean;
}

/**
 * Where a worker thread's entry is, the same way in every kind of run:
 * - the file its variable names, when set (a developer's, or a test's broken worker);
 * - `<name>.js` beside the bundle that asks (out/server, out/main: after bundling this module's
 *   URL is its bundle's);
 * - run from the TypeScript sources (`tsx server/cli.ts`, and every Herald a test opens in its
 *   own process): server/workers/<name>.ts, through the start-up file that registers tsx.
 * Null when there is none (sources without tsx): the caller does the work on its own thread.
 */
export function locateWorker(name: WorkerName, place: WorkerPlace): WorkerEntry | null {
  const named = place.env[WORKER_VARIABLES[name]];
  if (named) return { file: named, argv: [] };
  const beside = path.join(place.here, `${name}.js`);
  if (place.exists(beside)) return { file: beside, argv: [] };
  const source = path.join(place.here, '..', 'workers', `${name}.ts`);
  if (place.fromSources && place.exists(source) && place.tsxAvailable()) {
    return { file: path.join(place.here, '..', 'workers', 'from-sources.mjs'), argv: [source] };
  }
  return null;
}

/** workerEntry() is {@link locateWorker} for this process. */
export function workerEntry(name: WorkerName): WorkerEntry | null {
  return locateWorker(name, {
    env: process.env,
    here,
    fromSources: import.meta.url.endsWith('.ts'),
    exists: existsSync,
    tsxAvailable,
  });
}

/** startWorker() starts a thread on `entry` with these options. */
export function startWorker(entry: WorkerEntry, options: WorkerOptions = {}): Worker {
  return new Worker(entry.file, { ...options, argv: [...entry.argv, ...(options.argv ?? [])] });
}
