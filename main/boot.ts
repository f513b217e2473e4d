import { randomBytes } from 'node:crypto';
import path from 'node:path';

import { createLogger } from '../server/lib/logger';
import { appFiles } from './app-files';
import { appMenuTemplate } from './app-menu';
import { bundledCliPath, installFromMenu, nodeCliInstallFs } from './cli-install';
import type { ElectronMain, MainBrowserWindow } from './electron';
import { registerAppInfoHandlers } from './ipc/handlers/app-info';
import { registerReaderHandlers } from './ipc/handlers/reader';
import { registerServerInfoHandlers } from './ipc/handlers/server-info';
import { registerSettingsHandlers } from './ipc/handlers/settings';
import { registerShellHandlers } from './ipc/handlers/shell';
import { createIpcRegistrar } from './ipc/ipc-main';
import { lanWarningDialog } from './lan-warning';
import type { LoginItem } from './login-item';
import { createNotifier, type HostedMessageEvent } from './notifications';
import type { AppPaths } from './paths';
import { portConflictDialog, startOnChosenPort } from './port-choice';
import { promptForPort } from './port-prompt';
import { createReaderLink } from './reader-link';
import { guardEveryWebContents, guardSession, safelyOpenExternal } from './security';
import {
  lanUrlsFor,
  listenHost,
  windowUrlFor,
  type EmbeddedServer,
  type ReadsEvent,
  type StartEmbeddedServer,
} from './server-contract';
import { SETTINGS_FILE, type DesktopSettingsService } from './settings';
import type { ShutdownStep } from './shutdown';
import type { TestHooks } from './test-hooks';
import { createTrayController, unreadPhrase, type TrayController } from './tray';
import { getMainWindowOptions, revealWindow, shouldHideOnClose } from './window';
import { createWindowPerson } from './window-person';
import {
  crashResponse,
  isAbortedLoad,
  loadFailureDialog,
  windowCrashDialog,
} from './window-recovery';

const log = createLogger('desktop');

/** How often the tray re-reads the unread count (reading in the console changes it too). */
const UNREAD_REFRESH_MS = 15_000;

/** Everything boot needs, gathered by index.ts. */
export interface BootContext {
  electron: ElectronMain;
  paths: AppPaths;
  settings: DesktopSettingsService;
  /** Database and key variables the packaged app left out (main/packaged-environment.ts). */
  ignoredDatabaseVariables: string[];
  /** Start at login, the OS's way (main/login-item.ts). */
  loginItem: LoginItem;
  /**
   * Started at login: the window stays hidden in the tray, or is minimised where no tray
   * shows, so nothing pops up over what the user logged in to do.
   */
  startHidden: boolean;
  startServer: StartEmbeddedServer;
  /** Folder holding out/main/index.js; preload and assets are found relative to it. */
  mainDir: string;
  version: string;
  /** True once quitting started (the user's or the OS's), so closing the window really closes it. */
  isQuitting(): boolean;
  hooks: TestHooks | null;
  /** process.platform, injected so each OS's branch runs in tests on any machine. */
  platform: NodeJS.Platform;
  /** Whether a tray icon will show (main/tray-support.ts). */
  traySupported: boolean;
  /** The environment, for `APPIMAGE`. */
  env: Record<string, string | undefined>;
  /**
   * Windows is ending the session (logoff, shutdown, restart): the window's
   * `query-session-end`. The app starts its ordered shutdown, without refusing the OS.
   */
  onSessionEnding(): void;
  /** Windows ends the session now (`session-end`): the process is killed right after. */
  onSessionEnd(): void;
}

/** The running desktop app, as index.ts sees it. */
export interface Desktop {
  server: EmbeddedServer;
  /** Shows the window, creating it again if it was closed (macOS keeps the app running). */
  showWindow(): void;
  /**
   * Releases the data folder at once, synchronously: for the moment the OS ends the session,
   * after which no asynchronous step would run. Committed data is safe in SQLite's WAL.
   */
  releaseNow(): void;
  /** Teardown steps, in order, for the shutdown sequence. */
  shutdownSteps(): ShutdownStep[];
}

/**
 * relaunchOptions() is what app.relaunch needs to start this same app again. Inside an AppImage
 * the running executable lives in a temporary mount that disappears when Herald exits, so the
 * AppImage file itself ($APPIMAGE, set by the AppImage runtime) is relaunched instead.
 */
export function relaunchOptions(
  env: Record<string, string | undefined>,
): { execPath: string } | undefined {
  const appImage = env.APPIMAGE?.trim();
  return appImage ? { execPath: appImage } : undefined;
}

/**
 * boot() starts the desktop app in order: server (asking about a taken port) → session policy
 * → IPC → window signed in with a one-time secret → tray → notifications. Resolves null when
 * the user chose to quit instead of picking a port.
 */
export async function boot(ctx: BootContext): Promise<Desktop | null> {
  const { electron, paths, settings, platform } = ctx;
  const { app } = electron;
  const initial = settings.get();
  const files = appFiles(ctx.mainDir);
  const applyLoginItem = (openAtLogin: boolean): void => {
    ctx.loginItem
      .apply(openAtLogin)
      .catch((err: unknown) => log.warn('registering start at login failed', err));
  };
  if (initial.startAtLogin) {
    ctx.loginItem
      .refresh()
      .catch((err: unknown) => log.warn('updating the autostart entry failed', err));
  }

  // Every WebContents is guarded from its creation on, before the first window exists; the
  // origin is known once the server listens, and until then nothing may navigate.
  let origin: string | null = null;
  const openExternal = (url: string): void => {
    safelyOpenExternal(url, electron.shell).catch((err) => log.warn(`open ${url} failed`, err));
  };
  guardEveryWebContents(app, () => origin, openExternal);

  // The secret lives only in this process and the URL of the window's first load; the server
  // accepts it once, so a leaked URL is useless afterwards.
  const desktopSecret = randomBytes(32).toString('base64url');
  const host = listenHost(initial.listenOnLan);
  const started = await startOnChosenPort(initial.port, {
    host,
    start: (port) =>
      ctx.startServer({
        host,
        port,
        dataDir: paths.dataDir,
        desktopSecret,
        rendererDir: files.rendererDir,
        // Electron's single-instance lock already keeps a second desktop Herald away, so a
        // data-folder lock found now is a crashed run's, whatever its pid became since.
        takeOverDataDirLock: true,
        // A desktop user has no cron job: a daily backup into <data folder>/backups/.
        backupsByDefault: true,
      }),
    ask: async (conflict) => {
      const dialog = portConflictDialog(conflict);
      const { response } = await electron.dialog.showMessageBox(dialog.spec);
      return dialog.answer(response);
    },
    typePort: (conflict) =>
      promptForPort(conflict, (options) => new electron.BrowserWindow(options)),
  });
  if (!started) return null;
  const { server } = started;
  if (started.port !== initial.port) settings.update({ port: started.port });
  const windowOrigin = windowUrlFor(server.url);
  origin = windowOrigin;
  log.info(`server listening at ${server.url}; window origin ${windowOrigin}`);
  // The window gets the code through its one-time sign-in; the log is for anyone setting up
  // from another browser on this machine.
  const setupCode = server.setupCode();
  if (setupCode) log.info(`no administrator yet: one-time setup code ${setupCode}`);

  guardSession(electron.session.defaultSession, windowOrigin);
  const openFolder = (folder: string, what: string): void =>
    void electron.shell.openPath(folder).then((error) => {
      if (error) log.warn(`open ${what} failed: ${error}`);
    });
  const openDataFolder = (): void => openFolder(paths.dataDir, 'data folder');
  const openLogFolder = (): void => openFolder(paths.logsDir, 'log folder');

  let win: MainBrowserWindow | null = null;
  let tray: TrayController | null = null;
  const readerLink = createReaderLink(windowOrigin, (err) => log.warn('open message failed', err));
  let firstLoad = true;
  // Only the first window of a start at login stays hidden; a window opened later shows.
  let hideUntilAsked = ctx.startHidden;
  let trayWasCreated!: (shown: boolean) => void;
  const trayKnown = new Promise<boolean>((resolve) => (trayWasCreated = resolve));
  let lastCrashAt: number | null = null;
  const loadConsole = (target: MainBrowserWindow, url: string): void => {
    target.loadURL(url).catch(async (err: unknown) => {
      if (isAbortedLoad(err) || target.isDestroyed()) return;
      log.error('window failed to load the console', err);
      const dialog = loadFailureDialog(url, err);
      const { response } = await electron.dialog.showMessageBox(dialog.spec);
      if (!dialog.retry(response)) app.quit();
      else if (!target.isDestroyed()) loadConsole(target, `${windowOrigin}/`);
    });
  };
  const onRendererGone = async (target: MainBrowserWindow, reason: string): Promise<void> => {
    const now = Date.now();
    const action = crashResponse(reason, lastCrashAt, now);
    if (action === 'ignore' || target.isDestroyed()) return;
    log.error(`window renderer gone: ${reason}`);
    lastCrashAt = now;
    if (action === 'reload') {
      target.webContents.reload();
      return;
    }
    const dialog = windowCrashDialog(reason);
    const { response } = await electron.dialog.showMessageBox(dialog.spec);
    if (!dialog.reload(response)) app.quit();
    else if (!target.isDestroyed()) target.webContents.reload();
  };
  const ensureWindow = (): MainBrowserWindow => {
    if (win && !win.isDestroyed()) return win;
    const created = new electron.BrowserWindow(
      getMainWindowOptions({
        preloadPath: files.preload,
        iconPath: files.windowIcon,
      }),
    );
    if (hideUntilAsked) {
      hideUntilAsked = false;
      created.once('ready-to-show', () => {
        // Started at login: the window stays in the tray. Where no tray shows it is minimised
        // instead, so the taskbar still offers it (on Windows and Linux, minimize() shows a
        // window that was never shown in its minimised state); unless the user opened it
        // meanwhile from the tray or a second launch.
        void trayKnown.then((shown) => {
          if (!shown && !created.isDestroyed() && !created.isVisible()) created.minimize();
        });
      });
    } else {
      created.once('ready-to-show', () => created.show());
    }
    created.on('close', (event) => {
      const state = {
        minimizeToTray: settings.get().minimizeToTray,
        // Without a tray icon (new Tray() failed) a hidden window could not be brought back.
        hasTray: tray !== null,
        quitting: ctx.isQuitting(),
      };
      if (shouldHideOnClose(state)) {
        event.preventDefault();
        created.hide();
      }
    });
    created.on('closed', () => {
      if (win === created) win = null;
    });
    // Windows asks every top-level window before logoff or shutdown. Nothing here refuses it
    // (no preventDefault): Herald starts its ordered shutdown and lets the session end.
    created.on('query-session-end', () => ctx.onSessionEnding());
    created.on('session-end', () => ctx.onSessionEnd());
    created.webContents.on('render-process-gone', (_event, details) => {
      void onRendererGone(created, details.reason);
    });
    created.webContents.on('did-start-loading', () => readerLink.unloaded(created.webContents.id));
    // Only the first window of a run uses the secret; later ones (macOS re-open) reuse the
    // session cookie it set.
    const url = firstLoad
      ? `${windowOrigin}/api/console/desktop-login?secret=${desktopSecret}`
      : `${windowOrigin}/`;
    firstLoad = false;
    loadConsole(created, url);
    win = created;
    return created;
  };
  const showWindow = (): void => revealWindow(ensureWindow());
  const openMessage = (id: number): void => {
    const target = ensureWindow();
    readerLink.open(target, id);
    revealWindow(target);
  };

  const ipc = createIpcRegistrar(
    electron.ipcMain,
    {
      webContentsId: () => (win && !win.isDestroyed() ? win.webContents.id : null),
      origin: () => windowOrigin,
    },
    log,
  );
  const setDeliveriesPaused = (paused: boolean): boolean => {
    if (paused) server.deliveries.pause();
    else server.deliveries.resume();
    tray?.update({ deliveriesPaused: server.deliveries.paused });
    return server.deliveries.paused;
  };
  registerAppInfoHandlers(ipc, { version: ctx.version });
  registerShellHandlers(ipc, { shell: electron.shell, dataDir: paths.dataDir });
  let trayShown = false;
  registerServerInfoHandlers(ipc, {
    // What the server does now, not what the settings say after an unapplied change.
    serverInfo: () => ({
      url: windowOrigin,
      port: started.port,
      listenOnLan: initial.listenOnLan,
      lanUrls: initial.listenOnLan ? lanUrlsFor(started.port) : [],
      dataDir: paths.dataDir,
      settingsFile: path.join(paths.settingsDir, SETTINGS_FILE),
      deliveriesPaused: server.deliveries.paused,
      platform,
      trayShown,
      database: server.database,
      ignoredDatabaseVariables: ctx.ignoredDatabaseVariables,
    }),
    setDeliveriesPaused,
  });
  registerSettingsHandlers(ipc, {
    settings,
    confirmLan: async (port) => {
      const dialog = lanWarningDialog(port);
      const { response } = await electron.dialog.showMessageBox(dialog.spec);
      return dialog.confirmed(response);
    },
    loginItemState: () => ctx.loginItem.state(),
    restart: () => {
      // The new instance starts once this one has exited (Electron's relauncher waits), so
      // the single-instance and data-folder locks are free by then.
      app.relaunch(relaunchOptions(ctx.env));
      app.quit();
    },
  });

  electron.Menu.setApplicationMenu(
    electron.Menu.buildFromTemplate(
      appMenuTemplate(platform, app.isPackaged, {
        openWindow: () => showWindow(),
        openDataFolder,
        openLogFolder,
        installCommandLineTool: () => {
          const resources = (process as { resourcesPath?: string }).resourcesPath;
          void installFromMenu(
            {
              platform,
              env: ctx.env,
              homeDir: app.getPath('home'),
              bundledCli: bundledCliPath(app.isPackaged, resources, ctx.mainDir),
              installedCli: path.join(paths.userDataDir, 'cli', 'herald.mjs'),
              fs: nodeCliInstallFs,
            },
            (spec) => electron.dialog.showMessageBox(spec),
          ).catch((err: unknown) => log.warn('install command-line tool failed', err));
        },
      }),
    ),
  );

  ensureWindow();

  try {
    const icon = electron.nativeImage.createFromPath(files.trayIcon(platform));
    // A template image is drawn by macOS in the menu bar's own colour (light or dark).
    if (platform === 'darwin') icon.setTemplateImage(true);
    const nativeTray = new electron.Tray(icon);
    nativeTray.on('click', showWindow);
    tray = createTrayController(
      nativeTray,
      (template) => electron.Menu.buildFromTemplate(template),
      {
        openWindow: showWindow,
        setDeliveriesPaused: (paused) => void setDeliveriesPaused(paused),
        setDoNotDisturb: (on) => void settings.update({ doNotDisturb: on }),
        openDataFolder,
        openLogFolder,
        quit: () => app.quit(),
      },
      { unread: 0, deliveriesPaused: server.deliveries.paused, doNotDisturb: initial.doNotDisturb },
      platform,
    );
  } catch (err) {
    // Some Linux desktops have no tray; Herald still works from the window.
    log.warn('tray unavailable', err);
  }
  trayShown = tray !== null && ctx.traySupported;
  trayWasCreated(trayShown);
  if (!ctx.traySupported) {
    log.info('no tray host found on this desktop: closing the window quits Herald by default');
  }
  const unreadOverlay =
    platform === 'win32' ? electron.nativeImage.createFromPath(files.unreadOverlay) : null;
  const showUnreadOnTaskbar = (unread: number): void => {
    // setBadgeCount draws on the macOS dock and Unity-style Linux launchers only; Windows
    // marks the taskbar button with an overlay icon instead.
    if (platform !== 'win32') {
      app.setBadgeCount(unread);
      return;
    }
    if (!win || win.isDestroyed()) return;
    win.setOverlayIcon(unread > 0 ? unreadOverlay : null, unread > 0 ? unreadPhrase(unread) : '');
  };
  const publishTray = (): void => {
    if (ctx.hooks && tray) ctx.hooks.tray = tray.text;
  };
  publishTray();

  const showUnread = (unread: number): void => {
    tray?.update({ unread });
    showUnreadOnTaskbar(unread);
    if (ctx.hooks) ctx.hooks.unread = unread;
    publishTray();
  };
  // Read state is per person: the count, and whether to notify, follow the window's session.
  const person = createWindowPerson({
    cookies: electron.session.defaultSession.cookies,
    origin: windowOrigin,
    server,
    show: showUnread,
    onError: (err) => log.warn('reading the unread count failed', err),
  });
  const refreshUnread = (): Promise<void> => person.refresh();
  const onReads = (reads: ReadsEvent): void => person.onReads(reads);
  server.events.on('reads', onReads);
  // Someone deleted a message, maybe one unread here: the badge counts again.
  const onMessageDeleted = (): void => void refreshUnread();
  server.events.on('messageDeleted', onMessageDeleted);
  // Retention deleted old messages, maybe unread ones: the same.
  server.events.on('messagesPruned', onMessageDeleted);
  void refreshUnread();
  registerReaderHandlers(ipc, {
    // Only the window's own page gets past the registrar, so the sender is `win`.
    readerReady: () => {
      if (win && !win.isDestroyed()) readerLink.listening(win.webContents.id);
    },
    unreadChanged: refreshUnread,
  });
  const notifier = createNotifier({
    isSupported: () => electron.Notification.isSupported(),
    create: (options) => new electron.Notification(options),
    settings: () => settings.get(),
    openMessage,
    onRequest: (request) => ctx.hooks?.notifications.push(request),
  });
  const unreadTimer = setInterval(() => {
    void refreshUnread();
    notifier.prune();
  }, UNREAD_REFRESH_MS);
  /** The window person's own quiet hours decide how (and whether) it shows (issue 46 §1). */
  const notifyPerson = async (userId: number, message: HostedMessageEvent): Promise<void> => {
    const quiet = (await server.quietHours?.decide(userId, message.priority ?? null)) ?? null;
    notifier.notify(message, quiet);
  };
  const onMessage = (message: HostedMessageEvent): void => {
    // The server emits while storing the message: a throw here would reach the delivery and
    // mark a stored message as failed, so desktop trouble stays on this side.
    try {
      // A new message is unread for every person; with nobody signed in, nobody is told.
      if (person.userId !== null) {
        notifyPerson(person.userId, message).catch((err: unknown) =>
          log.warn(`notification for message ${message.id} failed`, err),
        );
      }
    } catch (err) {
      log.warn(`notification for message ${message.id} failed`, err);
    }
    void refreshUnread();
  };
  // The do-not-disturb switch of earlier versions becomes the first administrator's quiet-hours
  // rule once there is one (docs/desktop.md "Quiet hours"); the switch is then off again.
  if (initial.doNotDisturb && server.quietHours) {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    void server.quietHours
      .migrateDoNotDisturb(zone)
      .then((ruleId) => {
        if (ruleId === null) return;
        log.info(`do not disturb is now quiet-hours rule ${ruleId} (Account → Quiet hours)`);
        settings.update({ doNotDisturb: false });
      })
      .catch((err: unknown) => log.warn('moving do not disturb into quiet hours failed', err));
  }
  server.events.on('message', onMessage);

  const unsubscribeSettings = settings.onChange((update) => {
    if (update.changed.includes('doNotDisturb')) {
      tray?.update({ doNotDisturb: update.settings.doNotDisturb });
      publishTray();
    }
    if (update.changed.includes('startAtLogin')) applyLoginItem(update.settings.startAtLogin);
  });

  if (ctx.hooks) {
    ctx.hooks.serverUrl = server.url;
    ctx.hooks.windowUrl = windowOrigin;
    ctx.hooks.ready = true;
  }

  return {
    server,
    showWindow,
    releaseNow: () => server.releaseNow(),
    shutdownSteps: () => [
      {
        name: 'stop desktop integrations',
        timeoutMs: 2_000,
        run: () => {
          clearInterval(unreadTimer);
          server.events.off('message', onMessage);
          server.events.off('reads', onReads);
          server.events.off('messageDeleted', onMessageDeleted);
          server.events.off('messagesPruned', onMessageDeleted);
          unsubscribeSettings();
          ipc.dispose();
        },
      },
      // The server's own close is ordered and bounded (HTTP, then deliveries, then the
      // database); this cap is the backstop should it still hang.
      { name: 'close server', timeoutMs: 20_000, run: () => server.close() },
      { name: 'remove tray', timeoutMs: 2_000, run: () => tray?.destroy() },
    ],
  };
}
