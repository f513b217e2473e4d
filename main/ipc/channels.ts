/**
 * IPC channel names, shared by main and the preload so a typo is a compile error rather than
 * a silent no-op. `desktop:` prefixes renderer → main messages, `herald:` main → renderer ones.
 */
export const IpcChannel = {
  getServerInfo: 'desktop:get-server-info',
  getAppVersion: 'desktop:get-app-version',
  openExternal: 'desktop:open-external',
  revealDataFolder: 'desktop:reveal-data-folder',
  getSettings: 'desktop:get-settings',
  updateSettings: 'desktop:update-settings',
  /** What the OS has registered for start at login. */
  getLoginItem: 'desktop:get-login-item',
  setDeliveriesPaused: 'desktop:set-deliveries-paused',
  restartApp: 'desktop:restart-app',
  /** The page's unread count changed (it read or deleted messages): main re-reads it. */
  unreadChanged: 'desktop:unread-changed',
  /** One-way: the page listens for {@link MainToRenderer.openMessage}. */
  readerReady: 'desktop:reader-ready',
} as const;

export type IpcChannelName = (typeof IpcChannel)[keyof typeof IpcChannel];

/** Messages main sends to the page (the preload turns each into a named callback). */
export const MainToRenderer = {
  /** Show hosted message `id` in the reader (a notification was clicked). */
  openMessage: 'herald:open-message',
} as const;
