/**
 * Electron main-process entry (bundled to out/main/index.js): single-instance lock,
 * whenReady → boot(), before-quit → the ordered shutdown, then exit.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startServer } from '../server/index';
import { createLogger } from '../server/lib/logger';
import { boot, type Desktop } from './boot';
import { loadElectron } from './electron';
import { initAppPaths } from './paths';
import { createDesktopSettings } from './settings';
import { openSettingsStore } from './settings-store';
import { createShutdown } from './shutdown';
import { installTestHooks } from './test-hooks';

/** The package version, injected by scripts/build-main.ts (esbuild `define`). */
declare const __HERALD_VERSION__: string | undefined;

/** electron-builder.yml's appId. */
const APP_ID = 'org.herald.desktop';

const log = createLogger('desktop');
const electron = loadElectron();
const { app } = electron;

app.setName('Herald');
// Windows shows native notifications only for an app with a user model id; it matches the
// appId in electron-builder.yml, which the installer puts on the Start-menu shortcut.
if (process.platform === 'win32') app.setAppUserModelId(APP_ID);
// Paths before the lock: Chromium's profile and the single-instance lock both live in
// userData, so a test run or a dev build with its own folder never collides with the
// installed app.
const paths = initAppPaths(app);
const hooks = installTestHooks(app.isPackaged, process.env);
const version = typeof __HERALD_VERSION__ === 'string' ? __HERALD_VERSION__ : app.getVersion();

if (!app.requestSingleInstanceLock()) {
  // Another Herald owns this data folder; it receives 'second-instance' and shows its window.
  app.exit(0);
} else {
  let desktop: Desktop | null = null;
  let quitting = false;
  const shutdown = createShutdown(() => desktop?.shutdownSteps() ?? [], log);

  app.on('second-instance', () => desktop?.showWindow());
  app.on('activate', () => desktop?.showWindow());
  app.on('window-all-closed', () => {
    // With "minimise to tray" the window only hides, so this means the user closed it for
    // good. macOS apps stay in the Dock.
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', (event) => {
    quitting = true;
    // Quit is held until the server has closed; app.exit() below ends the process without
    // emitting before-quit again.
    event.preventDefault();
    if (shutdown.started) return;
    void shutdown.run().then((results) => {
      const clean = results.every((r) => r.outcome === 'done');
      app.exit(clean ? 0 : 1);
    });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  app
    .whenReady()
    .then(async () => {
      desktop = await boot({
        electron,
        paths,
        settings: createDesktopSettings(openSettingsStore(paths.settingsDir)),
        startServer,
        mainDir: path.dirname(fileURLToPath(import.meta.url)),
        version,
        isQuitting: () => quitting,
        hooks,
      });
      // The user chose "Quit" at the port dialog: nothing was started.
      if (!desktop) app.exit(0);
    })
    .catch((err: unknown) => {
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      log.error('start-up failed', err);
      electron.dialog.showErrorBox('Herald could not start', message);
      app.exit(1);
    });
}
