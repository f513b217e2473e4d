import type { DesktopApi } from './desktop-api';

/**
 * Every function the preload exposes as `window.desktop`, in one list: the preload builds its
 * object from exactly these keys (a missing or extra one fails to compile), and the Electron
 * e2e suite expects exactly this list on the page, so the two cannot drift apart.
 */
export const DESKTOP_API_KEYS = [
  'getServerInfo',
  'getAppVersion',
  'openExternal',
  'revealDataFolder',
  'getSettings',
  'updateSettings',
  'getLoginItem',
  'setDeliveriesPaused',
  'restartApp',
  'unreadChanged',
  'onOpenMessage',
] as const satisfies ReadonlyArray<keyof DesktopApi>;

type Listed = (typeof DESKTOP_API_KEYS)[number];
// Every key of DesktopApi is listed (the `satisfies` above checks the converse).
const everyKeyListed: [Exclude<keyof DesktopApi, Listed>] extends [never] ? true : false = true;
void everyKeyListed;
