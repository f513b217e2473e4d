/**
 * A build of the console made for one test file, in a folder of its own: the same command as
 * `npm run build:renderer`, so what it serves is what ships, and no other test's or person's
 * rebuild of renderer/dist can change it under the test.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** Builds the console into `outDir` (emptied first). */
export async function buildConsoleInto(outDir: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      join(ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'renderer/vite.config.ts',
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
}
