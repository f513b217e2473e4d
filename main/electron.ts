import { createRequire } from 'node:module';

import type { AppMenuItem } from './app-menu';
import type { AppPathsLike } from './paths';
import type { BrowserWindowLike, MainWindowOptions } from './window';
import type { IpcMainLike } from './ipc/ipc-main';
import type { LoginItemSettingsLike } from './login-item';
import type { ShellHandlersShellLike } from './ipc/handlers/shell';
import type { NotificationLike, NotificationOptions } from './notifications';
import type { MessageBoxSpec } from './port-choice';
import type { PortPromptWindowOptions, PromptWindowLike } from './port-prompt';
import type { GuardedWebContentsLike, SessionLike } from './security';
import type { CookieJarLike } from './window-person';
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

/** A NativeImage, as far as Herald uses it. */
export interface NativeImageLike {
  /** macOS: draw it as a template (alpha only, tinted by the menu bar). */
  setTemplateImage(option: boolean): void;
}

/** A BrowserWindow with the parts boot wires. */
export interface MainBrowserWindow extends BrowserWindowLike {
  readonly webContents: GuardedWebContentsLike & {
    readonly id: number;
    getURL(): string;
    send(channel: string, ...args: unknown[]): void;
    reload(): void;
    on(
      event: 'render-process-gone',
      listener: (event: unknown, details: { reason: string; exitCode?: number }) => void,
    ): unknown;
    on(event: 'did-start-loading', listener: () => void): unknown;
  };
  /** Windows only: the small image over the taskbar button (null removes it). */
  setOverlayIcon(overlay: NativeImageLike | null, description: string): void;
}

/** Electron's powerMonitor (main process, after ready), as far as Herald uses it. */
export interface PowerMonitorLike {
  /** Linux and macOS: the system is about to shut down, reboot or (macOS) log out. */
  on(event: 'shutdown', listener: (event: { preventDefault(): void }) => void): unknown;
}

/** Electron's `app`, as far as Herald uses it. */
export interface ElectronApp extends AppPathsLike {
  getPath(name: 'appData' | 'userData' | 'home'): string;
  getVersion(): string;
  getAppPath(): string;
  setName(name: string): void;
  setAppUserModelId(id: string): void;
  requestSingleInstanceLock(): boolean;
  whenReady(): Promise<void>;
  quit(): void;
  exit(code?: number): void;
  /** Starts the app again once this one has exited; `execPath` replaces the executable. */
  relaunch(options?: { execPath?: string; args?: string[] }): void;
  setLoginItemSettings(settings: { openAtLogin: boolean; args?: string[] }): void;
  getLoginItemSettings(options?: { args?: string[] }): LoginItemSettingsLike;
  setBadgeCount(count?: number): boolean;
  on(event: 'second-instance' | 'window-all-closed' | 'activate', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
  on(
    event: 'web-contents-created',
    listener: (event: unknown, contents: GuardedWebContentsLike) => void,
  ): unknown;
}

/** The module `require('electron')` returns in the main process (the parts Herald uses). */
export interface ElectronMain {
  app: ElectronApp;
  BrowserWindow: {
    new (options: MainWindowOptions): MainBrowserWindow;
    new (options: PortPromptWindowOptions): PromptWindowLike;
  };
  Tray: new (image: unknown) => TrayLike & { on(event: 'click', listener: () => void): unknown };
  Menu: {
    buildFromTemplate(template: TrayMenuItem[] | AppMenuItem[]): unknown;
    setApplicationMenu(menu: unknown): void;
  };
  nativeImage: { createFromPath(path: string): NativeImageLike };
  powerMonitor: PowerMonitorLike;
  Notification: (new (options: NotificationOptions) => NotificationLike) & {
    isSupported(): boolean;
  };
  dialog: {
    showMessageBox(options: MessageBoxSpec): Promise<{ response: number }>;
    showErrorBox(title: string, content: string): void;
  };
  shell: ShellHandlersShellLike;
  session: { defaultSession: SessionLike & { cookies: CookieJarLike } };
  ipcMain: IpcMainLike;
}

/** loadElectron() returns the Electron main-process module; only valid inside Electron. */
export function loadElectron(): ElectronMain {
  const nodeRequire = createRequire(import.meta.url);
  return nodeRequire('electron') as ElectronMain;
}
