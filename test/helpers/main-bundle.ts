/**
 * The desktop app's main bundles (out/main, out/preload) for the test files that run or package
 * them (packaged-layout, the Electron end-to-end suite): built under a lock (build-lock.ts), and
 * only when missing, incomplete or older than what goes into them.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

import {
  buildMain,
  DESKTOP_CLI,
  MAIN_EXTERNALS_FILE,
  MAIN_METAFILE,
  RUNTIME_ASSETS,
} from '../../scripts/build-main';
import { APP_MAIN, MAIN_WORKER_FILES } from '../../scripts/dist';
import { withBuildLock } from './build-lock';

const root = path.resolve(import.meta.dirname, '../..');

/** Every file under `dir`, as paths relative to it with `/` between folders. */
export function walk(dir: string, prefix = ''): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...walk(path.join(dir, entry.name), rel));
    else files.push(rel);
  }
  return files;
}

/** Whether out/main must be built: missing, incomplete or older than what goes into it. */
export function mainBuildIsStale(): boolean {
  const outputs = [
    APP_MAIN,
    ...MAIN_WORKER_FILES,
    'out/preload/index.cjs',
    DESKTOP_CLI,
    MAIN_EXTERNALS_FILE,
    MAIN_METAFILE,
  ].concat(RUNTIME_ASSETS.map((asset) => `out/main/assets/${asset}`));
  if (outputs.some((file) => !existsSync(path.join(root, file)))) return true;
  const builtAt = statSync(path.join(root, APP_MAIN)).mtimeMs;
  const inputs = [
    'package.json',
    'scripts/build-main.ts',
    'scripts/build-server.mjs',
    ...['main', 'server', 'contract', 'cli', 'build'].flatMap((dir) =>
      walk(path.join(root, dir)).map((file) => `${dir}/${file}`),
    ),
  ];
  return inputs.some((file) => statSync(path.join(root, file)).mtimeMs > builtAt);
}

/** Builds out/main unless it is up to date, one test process at a time; its main file. */
export function ensureMainBundle(): Promise<string> {
  return withBuildLock('main', async () => {
    if (mainBuildIsStale()) await buildMain();
    return path.join(root, APP_MAIN);
  });
}
