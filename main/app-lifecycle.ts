/**
 * The desktop app's life from start to exit, with every Electron and process dependency
 * injected so each branch runs under plain Node in tests: the single-instance lock, the log
 * file, boot, the start-failure dialog, and every way Herald is asked to stop (the user's quit,
 * SIGINT/SIGTERM, the launcher's stop request, an OS shutdown or logoff). main/index.ts only
 * gathers the real dependencies and calls {@link runDesktopApp}.
 */
import { addLogSink, type Logger } from '../server/lib/logger';
import { boot, type BootContext, type Desktop } from './boot';
import type { ElectronMain } from './electron';
import { openLogFile } from './log-file';
import { createLoginItem, nodeAutostartFs, startedAtLogin } from './login-item';
import { ignoredVariables, removeIgnored } from './packaged-environment';
import { initAppPaths, type AppPaths } from './paths';
import type { StartEmbeddedServer } from './server-contract';
import { createDesktopSettings, defaultDesktopSettings, type SettingsStoreLike } from './settings';
import { createShutdown, type ShutdownStepResult } from './shutdown';
import { startFailureDialog } from './start-failure';
import { watchLauncherControl, type LineSource } from './launcher-control';
import { installTestHooks } from './test-hooks';
import { detectTraySupport } from './tray-support';

/** electron-builder.yml's appId. */
export const APP_ID = 'org.herald.desktop';

/** The part of `process` the app lifecycle uses. */
export interface ProcessLike {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  /** The command line: `--hidden` marks a start at login (main/login-item.ts). */
  argv: readonly string[];
  /** The installed executable, which a login item starts. */
  execPath: string;
  on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  /** Standard input: the launcher's control channel when HERALD_LAUNCHER_CONTROL=stdin. */
  stdin?: LineSource;
}

export interface DesktopAppDeps {
  electron: ElectronMain;
  process: ProcessLike;
  /**
   * Loads the embedded server (a dynamic import in main/index.ts). Called inside the start-up's
   * try: a native module that fails to load rejects here and gets Herald's start-failure dialog
   * and a line in the log file.
   */
  loadServer(): Promise<StartEmbeddedServer>;
  openSettingsStore(dir: string): SettingsStoreLike;
  /** Folder holding out/main/index.js. */
  mainDir: string;
  version: string;
  log: Logger;
  /** Whether a tray icon will show; main/tray-support.ts by default. */
  detectTray?: (
    platform: NodeJS.Platform,
    env: Record<string, string | undefined>,
  ) => Promise<boolean>;
  /** boot(), replaceable so the lifecycle's own branches are tested without a server. */
  boot?: (ctx: BootContext) => Promise<Desktop | null>;
}

/** What a run exposes, for tests and index.ts. */
export interface DesktopRun {
  /** False when another instance owns the app: this one exits at once. */
  readonly primary: boolean;
  paths: AppPaths;
  /** Settles once start-up finished, failed, or was declined at the port dialog. */
  started: Promise<void>;
  /** The shutdown's results once it ran. */
  shutdownResults(): ShutdownStepResult[] | null;
  /** Detaches the log file (the process's exit does it in the app; tests run several apps). */
  stopLogging(): void;
}

/**
 * runDesktopApp() starts the desktop app. How each stop request is handled:
 * - the user quits (tray, menu, Cmd+Q, last window closed): `before-quit` is held while the
 *   ordered shutdown runs, then the app exits;
 * - SIGINT, SIGTERM, or the launcher's "quit" line or its going away: the same, through
 *   app.quit();
 * - Linux and macOS shutdown or logoff (powerMonitor `shutdown`): the ordered shutdown starts at
 *   once; `before-quit` is then never held, since holding it makes macOS cancel the logout. It
 *   releases the data folder synchronously instead, in case the OS ends Herald before the
 *   shutdown finishes;
 * - Windows logoff or shutdown (the window's `query-session-end`, then `session-end`): the same,
 *   with the synchronous release at `session-end`, after which Windows ends the process.
 */
export function runDesktopApp(deps: DesktopAppDeps): DesktopRun {
  const { electron, process: proc, log } = deps;
  const { app } = electron;
  const platform = proc.platform;

  app.setName('Herald');
  // Windows shows native notifications only for an app with a user model id; it matches the
  // appId in electron-builder.yml, which the installer puts on the Start-menu shortcut.
  if (platform === 'win32') app.setAppUserModelId(APP_ID);
  // Paths before the lock: Chromium's profile and the single-instance lock both live in
  // userData, so a test run or a dev build with its own folder never collides with the
  // installed app.
  const paths = initAppPaths(app, proc.env);

  let results: ShutdownStepResult[] | null = null;
  if (!app.requestSingleInstanceLock()) {
    // Another Herald owns this user-data folder; it receives 'second-instance' and shows its
    // window. Nothing is logged: the log file is the running instance's.
    app.exit(0);
    return {
      primary: false,
      paths,
      started: Promise.resolve(),
      shutdownResults: () => null,
      stopLogging: () => undefined,
    };
  }

  const logFile = openLogFile(paths.logsDir);
  const stopLogging = addLogSink((line) => logFile.write(line));
  log.info(`Herald ${deps.version} starting (${platform}); log file ${logFile.file}`);
  const hooks = installTestHooks(app.isPackaged, proc.env);

  let desktop: Desktop | null = null;
  let quitting = false;
  let osEnding = false;
  const shutdown = createShutdown(() => desktop?.shutdownSteps() ?? [], log);
  const finish = (): void => {
    if (shutdown.started) return;
    void shutdown.run().then((done) => {
      results = done;
      if (hooks) hooks.shutdown = done;
      const clean = done.every((r) => r.outcome === 'done');
      app.exit(clean ? 0 : 1);
    });
  };
  const osIsEnding = (why: string): void => {
    if (osEnding) return;
    osEnding = true;
    quitting = true;
    log.info(`${why}: stopping Herald`);
    finish();
  };
  const releaseNow = (): void => {
    try {
      desktop?.releaseNow();
    } catch (err) {
      log.warn('releasing the data folder failed', err);
    }
  };

  app.on('second-instance', () => desktop?.showWindow());
  app.on('activate', () => desktop?.showWindow());
  app.on('window-all-closed', () => {
    // With close-to-tray the window only hides, so this means the user closed it for good.
    // macOS apps stay in the Dock.
    if (platform !== 'darwin') app.quit();
  });
  app.on('before-quit', (event) => {
    quitting = true;
    if (osEnding) {
      // Holding the quit now would make macOS cancel the logout or shutdown.
      releaseNow();
      return;
    }
    // Quit is held until the server has closed; app.exit() ends the process without emitting
    // before-quit again.
    event.preventDefault();
    finish();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) proc.on(signal, () => app.quit());
  // Started by `npm start` on Windows, where a signal cannot reach Electron gracefully: the
  // launcher asks through standard input instead (scripts/launcher.ts).
  if (proc.env.HERALD_LAUNCHER_CONTROL === 'stdin' && proc.stdin && !app.isPackaged) {
    watchLauncherControl(proc.stdin, () => app.quit());
  }

  const detectTray = deps.detectTray ?? detectTraySupport;
  const runBoot = deps.boot ?? boot;
  const started = app
    .whenReady()
    .then(async () => {
      if (platform === 'darwin' || platform === 'linux') {
        // powerMonitor exists only once the app is ready. Delaying the shutdown (Linux takes a
        // logind delay lock; macOS waits) gives the ordered shutdown its few seconds.
        electron.powerMonitor.on('shutdown', (event) => {
          event.preventDefault();
          osIsEnding('the system is shutting down or logging off');
        });
      }
      const traySupported = await detectTray(platform, proc.env);
      const settings = createDesktopSettings(
        deps.openSettingsStore(paths.settingsDir),
        defaultDesktopSettings(traySupported),
      );
      // Before the server is loaded: its modules read some variables once, as they load.
      const ignored = ignoredVariables(proc.env, {
        isPackaged: app.isPackaged,
        databaseFromEnvironment: settings.get().databaseFromEnvironment,
      });
      removeIgnored(proc.env, ignored);
      if (ignored.developer.length > 0) {
        log.warn(
          `ignored developers' variables in the packaged app: ${ignored.developer.join(', ')}`,
        );
      }
      if (ignored.databaseAndKey.length > 0) {
        log.warn(
          `ignored ${ignored.databaseAndKey.join(', ')}: the desktop app keeps its data in ` +
            `${paths.dataDir} unless config.json's databaseFromEnvironment is true (docs/desktop.md)`,
        );
      }
      const startServer = await deps.loadServer();
      const loginItem = createLoginItem({
        platform,
        app,
        env: proc.env,
        execPath: proc.execPath,
        homeDir: app.getPath('home'),
        fs: nodeAutostartFs,
      });
      const hidden = startedAtLogin(platform, proc.argv, app);
      if (hidden) log.info('started at login: the window stays in the tray');
      desktop = await runBoot({
        electron,
        paths,
        settings,
        loginItem,
        startHidden: hidden,
        ignoredDatabaseVariables: ignored.databaseAndKey,
        startServer,
        mainDir: deps.mainDir,
        version: deps.version,
        isQuitting: () => quitting,
        hooks,
        platform,
        traySupported,
        env: proc.env,
        onSessionEnding: () => osIsEnding('Windows is ending the session'),
        onSessionEnd: releaseNow,
      });
      // The user chose "Quit" at the port dialog: nothing was started.
      if (!desktop) app.exit(0);
    })
    .catch((err: unknown) => {
      // The whole error, stack included, goes to the log file; the dialog says what happened
      // and where the details are, without a stack trace.
      log.error('start-up failed', err);
      const dialog = startFailureDialog(err, logFile.file);
      electron.dialog.showErrorBox(dialog.title, dialog.content);
      app.exit(1);
    });

  return { primary: true, paths, started, shutdownResults: () => results, stopLogging };
}
