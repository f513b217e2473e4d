/**
 * Electron main-process entry (bundled to out/main/index.js): gathers the real Electron and the
 * process and hands them to runDesktopApp (main/app-lifecycle.ts), which holds every branch of
 * the app's life and is tested with fakes.
 *
 * The server is imported dynamically, inside runDesktopApp's start-up: it loads the native
 * modules (argon2, sqlite3, better-sqlite3 on its first use), and one that fails to load (a
 * binary built for a newer glibc, a file quarantined by antivirus software) must reach Herald's
 * own start-failure dialog and log file rather than Electron's raw error box. Nothing imported
 * statically here may import a native module: test/integration/packaging/main-bundle.test.ts
 * reads the built bundle's static imports to keep it so.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { createLogger } from '../server/lib/logger';
import { runDesktopApp } from './app-lifecycle';
import { loadElectron } from './electron';
import { openSettingsStore } from './settings-store';

/** The package version, injected by scripts/build-main.ts (esbuild `define`). */
declare const __HERALD_VERSION__: string | undefined;

// Herald's own code has NODE_ENV folded in at build time; the npm packages kept external
// read it at run time, and must not run in development mode for users.
// Object.assign, because the build's `define` would rewrite a plain assignment's target.
Object.assign(process.env, { NODE_ENV: 'production' });

const electron = loadElectron();
runDesktopApp({
  electron,
  process,
  loadServer: async () => (await import('../server/index')).startServer,
  openSettingsStore,
  mainDir: path.dirname(fileURLToPath(import.meta.url)),
  version: typeof __HERALD_VERSION__ === 'string' ? __HERALD_VERSION__ : electron.app.getVersion(),
  log: createLogger('desktop'),
});
