import { promises as fsp } from 'node:fs';
import path from 'node:path';

import type { LoginItemState } from './preload/desktop-api';

/**
 * Start at login, on each OS the way it works there, and what the OS really has registered.
 *
 * - Windows: a `Run` registry value through `app.setLoginItemSettings` with `--hidden` as its
 *   argument, so a start at login goes to the tray. Electron finds the value again only when
 *   asked with the same `args` (`openAtLogin` compares the whole command line), and
 *   `executableWillLaunchAtLogin` says whether Windows will really run it: false when the user
 *   turned Herald off under Task Manager → Startup apps, which keeps the value.
 * - macOS: the main app registered as a login item (SMAppService from macOS 13). It takes no
 *   arguments; `wasOpenedAtLogin` tells a start at login instead. `status` says when the user
 *   must approve it in System Settings → General → Login Items.
 * - Linux: Electron does nothing there. Herald writes an XDG autostart entry,
 *   `$XDG_CONFIG_HOME/autostart/herald.desktop` (`~/.config/autostart`), whose `Exec` runs this
 *   copy of Herald (the AppImage file itself for an AppImage) with `--hidden`.
 *
 * Only the installed app registers anything: a development run's executable is the `electron`
 * binary of the repository, which would start an empty Electron at login.
 */

/** The argument a start at login carries (Windows, Linux), read back by {@link startedAtLogin}. */
export const HIDDEN_FLAG = '--hidden';

/** The autostart entry's file name. */
export const AUTOSTART_FILE = 'herald.desktop';

/** A key only Herald's own entry carries, so a user's own herald.desktop is never taken for it. */
export const AUTOSTART_MARKER = 'X-Herald-Autostart=true';

/** What Electron's `app.getLoginItemSettings()` answers, as far as Herald reads it. */
export interface LoginItemSettingsLike {
  openAtLogin: boolean;
  /** Windows: a Run entry for this executable is enabled (Task Manager's switch included). */
  executableWillLaunchAtLogin?: boolean;
  /** macOS: this run was started as a login item. */
  wasOpenedAtLogin?: boolean;
  /** macOS 13+: 'not-registered' | 'enabled' | 'requires-approval' | 'not-found'. */
  status?: string;
}

/** The part of Electron's `app` that login items use. */
export interface LoginItemAppLike {
  readonly isPackaged: boolean;
  setLoginItemSettings(settings: { openAtLogin: boolean; args?: string[] }): void;
  getLoginItemSettings(options?: { args?: string[] }): LoginItemSettingsLike;
}

/** The file calls the Linux entry makes, failing as node:fs/promises does (err.code). */
export interface AutostartFs {
  readFile(file: string): Promise<string>;
  writeFile(file: string, text: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  mkdir(dir: string, options: { recursive: true }): Promise<unknown>;
}

export const nodeAutostartFs: AutostartFs = {
  readFile: (file) => fsp.readFile(file, 'utf8'),
  writeFile: (file, text) => fsp.writeFile(file, text, { mode: 0o644 }),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (file) => fsp.unlink(file),
  mkdir: (dir, options) => fsp.mkdir(dir, options),
};

/** What Settings → Desktop shows about start at login (the renderer's own declaration). */
export type { LoginItemState };

/** Registers and reads Herald's login item on one OS. */
export interface LoginItem {
  readonly supported: boolean;
  /** Registers (true) or removes (false) the login item. */
  apply(openAtLogin: boolean): Promise<void>;
  /** What the OS has registered now. */
  state(): Promise<LoginItemState>;
  /**
   * At start, with start at login on: brings Herald's own registration up to date without
   * turning on what the user turned off (an updated AppImage has a new file name; an older
   * Herald registered Windows' entry without --hidden).
   */
  refresh(): Promise<void>;
}

export interface LoginItemDeps {
  platform: NodeJS.Platform;
  app: LoginItemAppLike;
  env: Record<string, string | undefined>;
  /** process.execPath: the installed executable. */
  execPath: string;
  homeDir: string;
  fs: AutostartFs;
}

/**
 * startedAtLogin() tells a start at login: the `--hidden` argument Herald registers on Windows
 * and Linux, `wasOpenedAtLogin` on macOS (where a login item takes no arguments). Read only after
 * the app is ready: macOS sets it as the app finishes launching.
 */
export function startedAtLogin(
  platform: NodeJS.Platform,
  argv: readonly string[],
  app: Pick<LoginItemAppLike, 'getLoginItemSettings'>,
): boolean {
  if (platform === 'darwin') return app.getLoginItemSettings().wasOpenedAtLogin === true;
  return argv.includes(HIDDEN_FLAG);
}

/** The folder of XDG autostart entries: $XDG_CONFIG_HOME/autostart, else ~/.config/autostart. */
export function autostartDir(env: Record<string, string | undefined>, homeDir: string): string {
  const config = env.XDG_CONFIG_HOME?.trim();
  // The XDG spec: a relative value is invalid and must be ignored.
  const base =
    config && path.posix.isAbsolute(config) ? config : path.posix.join(homeDir, '.config');
  return path.posix.join(base, 'autostart');
}

/**
 * A value for a desktop entry's Exec key: quoted when it holds a reserved character, with `"`,
 * `` ` ``, `$` and `\` escaped inside the quotes and `%` doubled, as the Desktop Entry
 * Specification's "The Exec key" requires.
 */
export function execArgument(value: string): string {
  const escaped = value.replace(/%/g, '%%');
  if (!/[\s"'\\><~|&;$*?#()`]/.test(value)) return escaped;
  return `"${escaped.replace(/(["`$\\])/g, '\\$1')}"`;
}

/** The autostart entry for `executable`, started hidden. */
export function autostartEntry(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Herald',
    'Comment=Self-hosted message dispatch, started in the tray at login',
    `Exec=${execArgument(executable)} ${HIDDEN_FLAG}`,
    // The icon the .deb installs (electron-builder names it after the executable).
    'Icon=herald-desktop',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    AUTOSTART_MARKER,
    '',
  ].join('\n');
}

/** Whether an autostart entry's text says it runs at login (not Hidden, not disabled). */
function entryEnabled(text: string): boolean {
  const keys = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^([A-Za-z0-9-]+)\s*=\s*(.*)$/.exec(line.trim());
    if (match && !keys.has(match[1]!)) keys.set(match[1]!, match[2]!.trim());
  }
  return keys.get('Hidden') !== 'true' && keys.get('X-GNOME-Autostart-enabled') !== 'false';
}

const codeOf = (err: unknown): string | undefined => (err as { code?: string } | null)?.code;

/** The executable a login should start: the AppImage file, which outlives its mount. */
export function loginExecutable(env: Record<string, string | undefined>, execPath: string): string {
  return env.APPIMAGE?.trim() || execPath;
}

function linuxLoginItem(deps: LoginItemDeps): LoginItem {
  const dir = autostartDir(deps.env, deps.homeDir);
  const file = path.posix.join(dir, AUTOSTART_FILE);
  const text = () => autostartEntry(loginExecutable(deps.env, deps.execPath));
  const read = async (): Promise<string | null> => {
    try {
      return await deps.fs.readFile(file);
    } catch (err) {
      if (codeOf(err) === 'ENOENT') return null;
      throw err;
    }
  };
  const write = async (): Promise<void> => {
    await deps.fs.mkdir(dir, { recursive: true });
    // Through a temporary file, so a failure never leaves half an entry for the session to run.
    const temporary = `${file}.herald-new`;
    try {
      await deps.fs.writeFile(temporary, text());
      await deps.fs.rename(temporary, file);
    } catch (err) {
      await deps.fs.unlink(temporary).catch(() => undefined);
      throw err;
    }
  };
  return {
    supported: true,
    async apply(openAtLogin) {
      if (openAtLogin) return write();
      const existing = await read();
      // A herald.desktop the user wrote is theirs to remove.
      if (existing === null || !existing.includes(AUTOSTART_MARKER)) return;
      await deps.fs.unlink(file).catch((err: unknown) => {
        if (codeOf(err) !== 'ENOENT') throw err;
      });
    },
    async state() {
      const existing = await read();
      return {
        supported: true,
        openAtLogin: existing !== null && entryEnabled(existing),
        attention: null,
      };
    },
    async refresh() {
      const existing = await read();
      if (existing !== null && existing.includes(AUTOSTART_MARKER) && existing !== text()) {
        await write();
      }
    },
  };
}

function windowsLoginItem(app: LoginItemAppLike): LoginItem {
  const args = [HIDDEN_FLAG];
  return {
    supported: true,
    async apply(openAtLogin) {
      app.setLoginItemSettings({ openAtLogin, args });
    },
    async state() {
      const settings = app.getLoginItemSettings({ args });
      const runs = settings.executableWillLaunchAtLogin ?? settings.openAtLogin;
      return {
        supported: true,
        openAtLogin: runs,
        // The Run value is there, and Task Manager's Startup apps has it turned off.
        attention: settings.openAtLogin && !runs ? 'disabled-by-user' : null,
      };
    },
    async refresh() {
      // An entry an older Herald registered without --hidden (or an Electron before 38.8.6
      // quoted differently) still runs, and would open the window: registered again, the same
      // way as now. One the user turned off in Task Manager is left off.
      const settings = app.getLoginItemSettings({ args });
      if (!settings.openAtLogin && settings.executableWillLaunchAtLogin === true) {
        app.setLoginItemSettings({ openAtLogin: true, args });
      }
    },
  };
}

function macLoginItem(app: LoginItemAppLike): LoginItem {
  return {
    supported: true,
    async apply(openAtLogin) {
      app.setLoginItemSettings({ openAtLogin });
    },
    async state() {
      const settings = app.getLoginItemSettings();
      return {
        supported: true,
        openAtLogin: settings.openAtLogin,
        attention: settings.status === 'requires-approval' ? 'requires-approval' : null,
      };
    },
    refresh: async () => undefined,
  };
}

const unsupported: LoginItem = {
  supported: false,
  apply: async () => undefined,
  state: async () => ({ supported: false, openAtLogin: false, attention: null }),
  refresh: async () => undefined,
};

/** createLoginItem() picks the OS's way; a development run registers nothing. */
export function createLoginItem(deps: LoginItemDeps): LoginItem {
  if (!deps.app.isPackaged) return unsupported;
  if (deps.platform === 'win32') return windowsLoginItem(deps.app);
  if (deps.platform === 'darwin') return macLoginItem(deps.app);
  if (deps.platform === 'linux') return linuxLoginItem(deps);
  return unsupported;
}
