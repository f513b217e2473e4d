/**
 * The window's preload: runs sandboxed, bundled to out/preload/index.cjs. It exposes one named
 * function per operation as `window.desktop`; the page never touches ipcRenderer, and there is
 * no way to name a channel from the page.
 */
import { IpcChannel, MainToRenderer } from '../ipc/channels';
import { DESKTOP_API_KEYS } from './api-keys';
import type { DesktopApi, DesktopSettings } from './desktop-api';

/** The part of Electron's renderer-side module the preload uses. */
interface PreloadElectron {
  contextBridge: { exposeInMainWorld(key: string, api: unknown): void };
  ipcRenderer: {
    invoke(channel: string, ...args: unknown[]): Promise<unknown>;
    send(channel: string, ...args: unknown[]): void;
    on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  };
}

// A sandboxed preload only has a polyfilled CommonJS `require` (no ESM, no createRequire), and
// the `electron` package is an optional dependency whose types may be absent: see
// main/electron.ts for the main-process side of the same choice.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { contextBridge, ipcRenderer } = require('electron') as PreloadElectron;

const api: DesktopApi = {
  getServerInfo: () =>
    ipcRenderer.invoke(IpcChannel.getServerInfo) as ReturnType<DesktopApi['getServerInfo']>,
  getAppVersion: () => ipcRenderer.invoke(IpcChannel.getAppVersion) as Promise<string>,
  openExternal: (url: string) =>
    ipcRenderer.invoke(IpcChannel.openExternal, url) as Promise<boolean>,
  revealDataFolder: () => ipcRenderer.invoke(IpcChannel.revealDataFolder) as Promise<void>,
  getSettings: () => ipcRenderer.invoke(IpcChannel.getSettings) as Promise<DesktopSettings>,
  updateSettings: (patch: Partial<DesktopSettings>) =>
    ipcRenderer.invoke(IpcChannel.updateSettings, patch) as ReturnType<
      DesktopApi['updateSettings']
    >,
  getLoginItem: () =>
    ipcRenderer.invoke(IpcChannel.getLoginItem) as ReturnType<DesktopApi['getLoginItem']>,
  setDeliveriesPaused: (paused: boolean) =>
    ipcRenderer.invoke(IpcChannel.setDeliveriesPaused, paused) as Promise<boolean>,
  restartApp: () => ipcRenderer.invoke(IpcChannel.restartApp) as Promise<void>,
  unreadChanged: () => ipcRenderer.invoke(IpcChannel.unreadChanged) as Promise<void>,
  onOpenMessage: (listener: (id: number) => void) => {
    // The page sees only the id, never the IPC event (it would expose the sender).
    const forward = (_event: unknown, id: unknown): void => {
      if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) listener(id);
    };
    ipcRenderer.on(MainToRenderer.openMessage, forward);
    ipcRenderer.send(IpcChannel.readerReady);
  },
};

// Exactly the listed keys cross the bridge, whatever else the object might carry.
const exposed = Object.fromEntries(DESKTOP_API_KEYS.map((key) => [key, api[key]]));
contextBridge.exposeInMainWorld('desktop', exposed);
