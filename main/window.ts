/**
 * The main window: its hardened options (a pure function pinned by a unit test) and a small
 * factory that wires the window's lifecycle.
 */

/** The subset of Electron's WebPreferences Herald sets; every security switch is explicit. */
export interface MainWebPreferences {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  webviewTag: false;
  navigateOnDragDrop: false;
  safeDialogs: true;
  /** Off: on Linux and Windows Chromium would download dictionaries from Google's CDN. */
  spellcheck: false;
}

/** The subset of Electron's BrowserWindowConstructorOptions Herald sets. */
export interface MainWindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: boolean;
  title: string;
  icon?: string;
  backgroundColor: string;
  autoHideMenuBar: boolean;
  webPreferences: MainWebPreferences;
}

/**
 * getMainWindowOptions() returns the window options: an isolated, sandboxed renderer without
 * Node, whose only bridge is the bundled preload. The window starts hidden and is shown when
 * its first paint is ready, so users never see a white flash.
 *
 * @param input - absolute path of the bundled preload (out/preload/index.cjs) and the icon
 */
export function getMainWindowOptions(input: {
  preloadPath: string;
  iconPath?: string;
}): MainWindowOptions {
  return {
    width: 1200,
    height: 800,
    minWidth: 880,
    minHeight: 560,
    show: false,
    title: 'Herald',
    ...(input.iconPath ? { icon: input.iconPath } : {}),
    backgroundColor: '#ffffff',
    autoHideMenuBar: true,
    webPreferences: {
      preload: input.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
    },
  };
}

/** The part of a BrowserWindow the window lifecycle touches. */
export interface BrowserWindowLike {
  readonly webContents: { readonly id: number };
  show(): void;
  hide(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  /** Minimises the window; one never shown is shown minimised (Windows, Linux). */
  minimize(): void;
  isVisible(): boolean;
  isDestroyed(): boolean;
  loadURL(url: string): Promise<void>;
  once(event: 'ready-to-show', listener: () => void): unknown;
  on(event: 'close', listener: (event: { preventDefault(): void }) => void): unknown;
  on(event: 'closed', listener: () => void): unknown;
  /** Windows only: the session is about to end (logoff, shutdown, restart), or ends now. */
  on(event: 'query-session-end' | 'session-end', listener: (event: unknown) => void): unknown;
}

/**
 * revealWindow() brings the window to the front, restoring it from the taskbar or the tray;
 * used by the second-instance handler, the tray and notification clicks.
 */
export function revealWindow(win: BrowserWindowLike | null | undefined): void {
  if (!win || win.isDestroyed()) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

/**
 * shouldHideOnClose() decides what the window's close button does: with "minimise to tray" on,
 * a tray icon to bring the window back, and unless the app is quitting (the user quit, or the
 * OS is shutting down or logging off), closing only hides the window so Herald keeps running.
 * Hiding during an OS shutdown would refuse it: Electron's quit closes the windows first.
 */
export function shouldHideOnClose(state: {
  minimizeToTray: boolean;
  hasTray: boolean;
  quitting: boolean;
}): boolean {
  return state.minimizeToTray && state.hasTray && !state.quitting;
}
