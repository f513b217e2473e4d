import { execFile } from 'node:child_process';

/**
 * Whether a tray icon will be visible. On macOS and Windows it always is. On Linux Electron
 * draws it as a StatusNotifierItem, which only shows where a StatusNotifier host runs (KDE,
 * Xfce, Cinnamon, Ubuntu's GNOME with its AppIndicator extension…); stock GNOME has none, and
 * `new Tray()` succeeds there all the same, so nothing in Electron says the icon is missing.
 * Close-to-tray defaults to off where no tray is known to show, or closing the window would
 * hide Herald with no icon to bring it back.
 */

/** The well-known bus name a StatusNotifier host registers (the freedesktop spec). */
export const STATUS_NOTIFIER_WATCHER = 'org.kde.StatusNotifierWatcher';

/** Desktops that ship a tray host (tokens of XDG_CURRENT_DESKTOP, lower case). */
const DESKTOPS_WITH_TRAY = new Set([
  'kde',
  'xfce',
  'x-cinnamon',
  'cinnamon',
  'mate',
  'lxqt',
  'lxde',
  'unity',
  // Ubuntu's session ("ubuntu:GNOME") enables the AppIndicator extension by default.
  'ubuntu',
  'budgie',
  'budgie-desktop',
  'pantheon',
  'deepin',
  'ukui',
  'enlightenment',
]);

/**
 * trayFromDesktopName() judges from XDG_CURRENT_DESKTOP alone: true for a desktop known to ship
 * a tray host, false otherwise (stock GNOME, an unknown or missing desktop).
 */
export function trayFromDesktopName(xdgCurrentDesktop: string | undefined): boolean {
  const tokens = (xdgCurrentDesktop ?? '')
    .split(':')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  return tokens.some((t) => DESKTOPS_WITH_TRAY.has(t));
}

/** Asks the session bus whether a StatusNotifier host is there: true, false, or null (no answer). */
export type WatcherProbe = () => Promise<boolean | null>;

/**
 * probeStatusNotifierWatcher() asks D-Bus with `dbus-send` (part of dbus, present wherever a
 * desktop session bus is) whether the watcher's name has an owner. Null when it cannot tell:
 * no dbus-send, no session bus, or no answer within a second.
 */
export function probeStatusNotifierWatcher(
  run: (file: string, args: string[]) => Promise<string> = execOutput,
): Promise<boolean | null> {
  return run('dbus-send', [
    '--session',
    '--print-reply',
    '--reply-timeout=1000',
    '--dest=org.freedesktop.DBus',
    '/org/freedesktop/DBus',
    'org.freedesktop.DBus.NameHasOwner',
    `string:${STATUS_NOTIFIER_WATCHER}`,
  ]).then(
    (out) => (/boolean true/.test(out) ? true : /boolean false/.test(out) ? false : null),
    () => null,
  );
}

function execOutput(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 2_000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

/**
 * detectTraySupport() answers whether a tray icon will show: always on macOS and Windows; on
 * Linux and the BSDs what the session bus says, else what the desktop's name suggests.
 */
export async function detectTraySupport(
  platform: NodeJS.Platform,
  env: Record<string, string | undefined>,
  probe: WatcherProbe = () => probeStatusNotifierWatcher(),
): Promise<boolean> {
  if (platform === 'darwin' || platform === 'win32') return true;
  const answer = await probe();
  if (answer !== null) return answer;
  return trayFromDesktopName(env.XDG_CURRENT_DESKTOP);
}
