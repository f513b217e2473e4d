/**
 * IPC channel names, shared by main and the preload so a typo is a compile error rather than
 * a silent no-op. `desktop:` prefixes renderer → main requests.
 */
export const IpcChannel = {
  getServerInfo: 'desktop:get-server-info',
  getAppVersion: 'desktop:get-app-version',
  openExternal: 'desktop:open-external',
  revealDataFolder: 'desktop:reveal-data-folder',
  getSettings: 'desktop:get-settings',
  updateSettings: 'desktop:update-settings',
  setDeliveriesPaused: 'desktop:set-deliveries-paused',
  restartApp: 'desktop:restart-app',
} as const;

export type IpcChannelName = (typeof IpcChannel)[keyof typeof IpcChannel];
