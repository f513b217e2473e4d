import { randomBytes } from 'node:crypto';
import path from 'node:path';

import { createLogger } from '../server/lib/logger';
import type { ElectronMain, MainBrowserWindow } from './electron';
import { registerAppInfoHandlers } from './ipc/handlers/app-info';
import { registerReaderHandlers } from './ipc/handlers/reader';
import { registerServerInfoHandlers } from './ipc/handlers/server-info';
import { registerSettingsHandlers } from './ipc/handlers/settings';
import { registerShellHandlers } from './ipc/handlers/shell';
import { createIpcRegistrar } from './ipc/ipc-main';
import { lanWarningDialog } from './lan-warning';
import { createNotifier, type HostedMessageEvent } from './notifications';
import type { AppPaths } from './paths';
import { portConflictDialog, startOnChosenPort } from './port-choice';
import { createReaderLink } from './reader-link';
import { guardSession, guardWebContents, safelyOpenExternal } from './security';
import {
  lanUrlsFor,
  listenHost,
  windowUrlFor,
  type EmbeddedServer,
  type StartEmbeddedServer,
} from './server-contract';
import type { DesktopSettingsService } from './settings';
import type { ShutdownStep } from './shutdown';
import type { TestHooks } from './test-hooks';
import { createTrayController, type TrayController } from './tray';
import { getMainWindowOptions, revealWindow, shouldHideOnClose } from './window';

const log = createLogger('desktop');

/** How often the tray re-reads the unread count (reading in the console changes it too). */
const UNREAD_REFRESH_MS = 15_000;

/** Everything boot needs, gathered by index.ts. */
export interface BootContext {
  electron: ElectronMain;
  paths: AppPaths;
  settings: DesktopSettingsService;
  startServer: StartEmbeddedServer;
  /** Folder holding out/main/index.js; preload and assets are found relative to it. */
  mainDir: string;
  version: string;
  /** True once quitting started, so closing the window really closes it. */
  isQuitting(): boolean;
  hooks: TestHooks | null;
}

/** The running desktop app, as index.ts sees it. */
export interface Desktop {
  server: EmbeddedServer;
  /** Shows the window, creating it again if it was closed (macOS keeps the app running). */
  showWindow(): void;
  /** Teardown steps, in order, for the shutdown sequence. */
  shutdownSteps(): ShutdownStep[];
}

/**
 * boot() starts the desktop app in order: server (asking about a taken port) → session policy
 * → IPC → window signed in with a one-time secret → tray → notifications. Resolves null when
 * the user chose to quit instead of picking a port.
 */
export async function boot(ctx: BootContext): Promise<Desktop | null> {
  const { electron, paths, settings } = ctx;
  const { app } = electron;
  const initial = settings.get();
  applyLoginItem(ctx, initial.startAtLogin);

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
        // out/main → the app root, in the repository and inside app.asar alike.
        rendererDir: path.join(ctx.mainDir, '..', '..', 'renderer', 'dist'),
      }),
    ask: async (conflict) => {
      const dialog = portConflictDialog(conflict);
      const { response } = await electron.dialog.showMessageBox(dialog.spec);
      return dialog.answer(response);
    },
  });
  if (!started) return null;
  const { server } = started;
  if (started.port !== initial.port) settings.update({ port: started.port });
  const origin = windowUrlFor(server.url);
  log.info(`server listening at ${server.url}; window origin ${origin}`);
  // The window gets the code through its one-time sign-in; the log is for anyone setting up
  // from another browser on this machine.
  const setupCode = server.setupCode();
  if (setupCode) log.info(`no administrator yet: one-time setup code ${setupCode}`);

  guardSession(electron.session.defaultSession, origin);
  const openExternal = (url: string): void => {
    safelyOpenExternal(url, electron.shell).catch((err) => log.warn(`open ${url} failed`, err));
  };

  let win: MainBrowserWindow | null = null;
  let tray: TrayController | null = null;
  const readerLink = createReaderLink(origin, (err) => log.warn('open message failed', err));
  let firstLoad = true;
  const ensureWindow = (): MainBrowserWindow => {
    if (win && !win.isDestroyed()) return win;
    const created = new electron.BrowserWindow(
      getMainWindowOptions({
        preloadPath: path.join(ctx.mainDir, '..', 'preload', 'index.cjs'),
        iconPath: path.join(ctx.mainDir, 'assets', 'icon.png'),
      }),
    );
    guardWebContents(created.webContents, origin, openExternal);
    created.once('ready-to-show', () => created.show());
    created.on('close', (event) => {
      // Without a tray (some Linux desktops) a hidden window could not be brought back.
      const state = {
        minimizeToTray: settings.get().minimizeToTray && tray !== null,
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
    created.webContents.on('render-process-gone', (_event, details) =>
      log.error(`window renderer gone: ${details.reason}`),
    );
    created.webContents.on('did-start-loading', () => readerLink.unloaded(created.webContents.id));
    // Only the first window of a run uses the secret; later ones (macOS re-open) reuse the
    // session cookie it set.
    const url = firstLoad
      ? `${origin}/api/console/desktop-login?secret=${desktopSecret}`
      : `${origin}/`;
    firstLoad = false;
    created.loadURL(url).catch((err) => log.error('window failed to load the console', err));
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
      origin: () => origin,
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
  registerServerInfoHandlers(ipc, {
    // What the server does now, not what the settings say after an unapplied change.
    serverInfo: () => ({
      url: origin,
      port: started.port,
      listenOnLan: initial.listenOnLan,
      lanUrls: initial.listenOnLan ? lanUrlsFor(started.port) : [],
      dataDir: paths.dataDir,
      deliveriesPaused: server.deliveries.paused,
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
    restart: () => {
      app.relaunch();
      app.quit();
    },
  });

  ensureWindow();

  try {
    const nativeTray = new electron.Tray(
      electron.nativeImage.createFromPath(path.join(ctx.mainDir, 'assets', 'tray.png')),
    );
    nativeTray.on('click', showWindow);
    tray = createTrayController(
      nativeTray,
      (template) => electron.Menu.buildFromTemplate(template),
      {
        openWindow: showWindow,
        setDeliveriesPaused: (paused) => void setDeliveriesPaused(paused),
        setDoNotDisturb: (on) => void settings.update({ doNotDisturb: on }),
        openDataFolder: () =>
          void electron.shell.openPath(paths.dataDir).then((error) => {
            if (error) log.warn(`open data folder failed: ${error}`);
          }),
        quit: () => app.quit(),
      },
      { unread: 0, deliveriesPaused: server.deliveries.paused, doNotDisturb: initial.doNotDisturb },
    );
  } catch (err) {
    // Some Linux desktops have no tray; Herald still works from the window.
    log.warn('tray unavailable', err);
  }
  const publishTray = (): void => {
    if (ctx.hooks && tray) ctx.hooks.tray = tray.text;
  };
  publishTray();

  const refreshUnread = async (): Promise<void> => {
    try {
      const unread = await server.unreadCount();
      tray?.update({ unread });
      app.setBadgeCount(unread);
      if (ctx.hooks) ctx.hooks.unread = unread;
      publishTray();
    } catch (err) {
      log.warn('reading the unread count failed', err);
    }
  };
  void refreshUnread();
  registerReaderHandlers(ipc, {
    // Only the window's own page gets past the registrar, so the sender is `win`.
    readerReady: () => {
      if (win && !win.isDestroyed()) readerLink.listening(win.webContents.id);
    },
    unreadChanged: refreshUnread,
  });
  const unreadTimer = setInterval(() => void refreshUnread(), UNREAD_REFRESH_MS);

  const notifier = createNotifier({
    isSupported: () => electron.Notification.isSupported(),
    create: (text) => new electron.Notification(text),
    settings: () => settings.get(),
    openMessage,
    onRequest: (request) => ctx.hooks?.notifications.push(request),
  });
  const onMessage = (message: HostedMessageEvent): void => {
    // The server emits while storing the message: a throw here would reach the delivery and
    // mark a stored message as failed, so desktop trouble stays on this side.
    try {
      notifier.notify(message);
    } catch (err) {
      log.warn(`notification for message ${message.id} failed`, err);
    }
    void refreshUnread();
  };
  server.events.on('message', onMessage);

  const unsubscribeSettings = settings.onChange((update) => {
    if (update.changed.includes('doNotDisturb')) {
      tray?.update({ doNotDisturb: update.settings.doNotDisturb });
      publishTray();
    }
    if (update.changed.includes('startAtLogin')) applyLoginItem(ctx, update.settings.startAtLogin);
  });

  if (ctx.hooks) {
    ctx.hooks.serverUrl = server.url;
    ctx.hooks.windowUrl = origin;
    ctx.hooks.ready = true;
  }

  return {
    server,
    showWindow,
    shutdownSteps: () => [
      {
        name: 'stop desktop integrations',
        timeoutMs: 2_000,
        run: () => {
          clearInterval(unreadTimer);
          server.events.off('message', onMessage);
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

/** Start at login exists on macOS and Windows only; Linux desktops use autostart files. */
function applyLoginItem(ctx: BootContext, openAtLogin: boolean): void {
  if (process.platform !== 'darwin' && process.platform !== 'win32') return;
  if (!ctx.electron.app.isPackaged) return;
  ctx.electron.app.setLoginItemSettings({ openAtLogin });
}
