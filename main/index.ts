/**
 * Electron main-process entry (bundled to out/main/index.js): gathers the real Electron, the
 * process and the embedded server and hands them to runDesktopApp (main/app-lifecycle.ts),
 * which holds every branch of the app's life and is tested with fakes.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startServer } from '../server/index';
import { createLogger } from '../server/lib/logger';
import { runDesktopApp } from './app-lifecycle';
import { loadElectron } from './electron';
import { openSettingsStore } from './settings-store';

/** The package version, injected by scripts/build-main.ts (esbuild `define`). */
declare const __HERALD_VERSION__: string | undefined;

// Herald's own code has NODE_ENV folded in at build time; the npm packages kept external
// (Express above all) read it at run time, and must not run in development mode for users.
// Object.assign, because the build's `define` would rewrite a plain assignment's target.
Object.assign(process.env, { NODE_ENV: 'production' });

const electron = loadElectron();
runDesktopApp({
  electron,
  process,
  startServer,
  openSettingsStore,
  mainDir: path.dirname(fileURLToPath(import.meta.url)),
  version: typeof __HERALD_VERSION__ === 'string' ? __HERALD_VERSION__ : electron.app.getVersion(),
  log: createLogger('desktop'),
});
