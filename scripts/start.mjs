/**
 * `npm start` and `npm run serve`, in plain JavaScript so that no TypeScript loader runs in
 * production: builds the server bundle when it is missing or older than its sources (about a
 * second, see scripts/build-server.mjs), then runs the compiled launcher in this process.
 * Headless, Herald's server then runs here too; the desktop app runs in a spawned Electron.
 */
import { pathToFileURL } from 'node:url';

import { ensureServerBuilt, launcherFile } from './build-server.mjs';

process.env.NODE_ENV ??= 'production';

try {
  if (await ensureServerBuilt()) console.log('Built the server bundle (out/server).');
  const { launch } = await import(pathToFileURL(launcherFile).href);
  await launch(process.argv.slice(2));
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
