import { createRequire } from 'node:module';

import type { AppPathsLike } from './paths';
import type { BrowserWindowLike, MainWindowOptions } from './window';
import type { IpcMainLike } from './ipc/ipc-main';
import type { ShellHandlersShellLike } from './ipc/handlers/shell';
import type { NotificationLike, NotificationText } from './notifications';
import type { MessageBoxSpec } from './port-choice';
import type { GuardedWebContentsLike, SessionLike } from './security';
import type { TrayLike, TrayMenuItem } from './tray';

/**
 * The Electron main-process API as Herald uses it, typed by the small `…Like` interfaces the
 * logic modules declare.
 *
 * Why not `import { app } from 'electron'`: `electron` is an optional dependency (its binary
 * is downloaded from the internet at install time), so its type declarations are absent on
 * offline, CI and headless installs and `tsc` must still pass there. An ambient
 * `declare module 'electron'` would collide with the real declarations wherever Electron is
 * installed (duplicate identifiers; only hidden by skipLibCheck). Loading it through
 * createRequire keeps one typing that is right in both cases; Electron resolves the name
 * `electron` for CommonJS `require` in the main process, ESM entry or not.
 */

/** A BrowserWindow with the parts boot wires. */
export interface MainBrowserWindow extends BrowserWindowLike {
  readonly webContents: GuardedWebContentsLike & {
    readonly id: number;
    getURL(): string;
    send(channel: string, ...args: unknown[]): void;
    on(
      event: 'render-process-gone',
      listener: (event: unknown, details: { reason: string }) => void,
    ): unknown;
    on(event: 'did-start-loading', listener: () => void): unknown;
  };
}

/** Electron's `app`, as far as Herald uses it. */
export interface ElectronApp extends AppPathsLike {
  getVersion(): string;
  getAppPath(): string;
  setName(name: string): void;
  setAppUserModelId(id: string): void;
  requestSingleInstanceLock(): boolean;
  whenReady(): Promise<void>;
  quit(): void;
  exit(code?: number): void;
  relaunch(): void;
  setLoginItemSettings(settings: { openAtLogin: boolean }): void;
  setBadgeCount(count?: number): boolean;
  on(event: 'second-instance' | 'window-all-closed' | 'activate', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
}

/** The module `require('electron')` returns in the main process (the parts Herald uses). */
export interface ElectronMain {
  app: ElectronApp;
  BrowserWindow: new (options: MainWindowOptions) => MainBrowserWindow;
  Tray: new (image: unknown) => TrayLike & { on(event: 'click', listener: () => void): unknown };
  Menu: { buildFromTemplate(template: TrayMenuItem[]): unknown };
  nativeImage: { createFromPath(path: string): unknown };
  Notification: (new (options: NotificationText) => NotificationLike) & { isSupported(): boolean };
  dialog: {
    showMessageBox(options: MessageBoxSpec): Promise<{ response: number }>;
    showErrorBox(title: string, content: string): void;
  };
  shell: ShellHandlersShellLike;
  session: { defaultSession: SessionLike };
  ipcMain: IpcMainLike;
}

/** loadElectron() returns the Electron main-process module; only valid inside Electron. */
export function loadElectron(): ElectronMain {
  const nodeRequire = createRequire(import.meta.url);
  return nodeRequire('electron') as ElectronMain;
}
