/**
 * What the desktop window's preload exposes as `window.desktop`. In a browser on the LAN
 * `window.desktop` is undefined: the console must treat every desktop feature as optional.
 *
 * Self-contained on purpose (no imports) so the renderer can include it without pulling in
 * main-process code.
 */

/** Desktop settings stored in the user-data folder's config.json. */
export interface DesktopSettings {
  /** Port of the embedded server; local scripts post to it. 1024–65535. */
  port: number;
  /** Listen on every network interface instead of 127.0.0.1. */
  listenOnLan: boolean;
  /** Open Herald when the user logs in (macOS and Windows). */
  startAtLogin: boolean;
  /** Closing the window keeps Herald running in the tray. */
  minimizeToTray: boolean;
  /** Native notification for each new hosted message. */
  notifications: boolean;
  /** Silence notifications for now. */
  doNotDisturb: boolean;
  /**
   * Obey HERALD_DATABASE_URL and HERALD_SECRET_KEY from the environment (set in config.json; the
   * packaged app ignores them otherwise). Applies after a restart.
   */
  databaseFromEnvironment: boolean;
}

/** Where the embedded server listens. */
export interface ServerInfo {
  /** The URL the window uses (always loopback). */
  url: string;
  port: number;
  listenOnLan: boolean;
  /** URLs other machines can use when listening on the LAN (one per IPv4 address), else []. */
  lanUrls: string[];
  /** Herald's data folder (database, key). */
  dataDir: string;
  /** The desktop settings file (config.json), for settings only a file edit changes. */
  settingsFile: string;
  deliveriesPaused: boolean;
  /** The app's `process.platform` ('darwin', 'win32', 'linux', …). */
  platform: string;
  /**
   * True when a tray icon was created and a tray is likely visible (false on desktops without
   * one, such as stock GNOME, where "close to tray" would leave no way back to the window).
   */
  trayShown: boolean;
  /** Where the data is: the SQLite file, or the PostgreSQL URL without its password. */
  database: { dialect: 'sqlite' | 'postgres'; location: string };
  /**
   * HERALD_DATABASE_URL, HERALD_SECRET_KEY or their _FILE twins, set in the environment and
   * ignored by the packaged app because config.json's `databaseFromEnvironment` is off.
   */
  ignoredDatabaseVariables: string[];
}

/** What the OS has registered for start at login ({@link DesktopApi.getLoginItem}). */
export interface LoginItemState {
  /** False in a development run, where nothing is registered. */
  supported: boolean;
  /** Whether the OS will open Herald at login, as the OS reports it. */
  openAtLogin: boolean;
  /**
   * Why the OS's answer needs the user: macOS waits for approval in System Settings → General →
   * Login Items, or Herald is turned off in Windows' Task Manager → Startup apps.
   */
  attention: 'requires-approval' | 'disabled-by-user' | null;
}

/** Answer of {@link DesktopApi.updateSettings}. */
export interface SettingsUpdateResult {
  settings: DesktopSettings;
  /** Port or LAN changed: they apply after {@link DesktopApi.restartApp}. */
  restartRequired: boolean;
  /** False when the user declined the LAN exposure warning (nothing was changed then). */
  applied: boolean;
}

/** One named function per operation; there is no generic channel access. */
export interface DesktopApi {
  getServerInfo(): Promise<ServerInfo>;
  getAppVersion(): Promise<string>;
  /** Opens an http(s) URL in the system browser; resolves false for any other URL. */
  openExternal(url: string): Promise<boolean>;
  /** Shows Herald's data folder in the file manager. */
  revealDataFolder(): Promise<void>;
  getSettings(): Promise<DesktopSettings>;
  /** Saves some settings; turning on LAN access first asks the user in a native dialog. */
  updateSettings(patch: Partial<DesktopSettings>): Promise<SettingsUpdateResult>;
  /** What the OS has registered for start at login (it may differ from the setting). */
  getLoginItem(): Promise<LoginItemState>;
  /** Pauses or resumes outgoing deliveries; resolves the new paused state. */
  setDeliveriesPaused(paused: boolean): Promise<boolean>;
  /** Restarts the app (ordered shutdown, then start) so port and LAN changes apply. */
  restartApp(): Promise<void>;
  /**
   * Tells main the user changed the unread count (read, unread, deleted): it re-reads the count
   * from the server for the tray and the dock/taskbar badge.
   */
  unreadChanged(): Promise<void>;
  /**
   * Calls `listener`, for the rest of the page's life, with a hosted message's id when its native
   * notification is clicked, so the page routes to the reader itself instead of being reloaded.
   * Until a page has subscribed (just created, still loading) main loads the reader's URL.
   */
  onOpenMessage(listener: (id: number) => void): void;
}

declare global {
  interface Window {
    /** Present only in the desktop window. */
    desktop?: DesktopApi;
  }
}
