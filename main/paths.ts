import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Every folder the desktop app uses, derived from one user-data folder. This module is the
 * only place that reads or sets Electron's `userData` path.
 */
export interface AppPaths {
  /** Electron's userData: Chromium's own caches plus everything below. */
  userDataDir: string;
  /** Herald's data (SQLite database, server key): handed to startServer and "Open data folder". */
  dataDir: string;
  /** Log files. */
  logsDir: string;
  /** Where the desktop settings file (config.json) lives. */
  settingsDir: string;
}

/** The part of Electron's `app` that paths need. */
export interface AppPathsLike {
  readonly isPackaged: boolean;
  getPath(name: 'appData' | 'userData'): string;
  setPath(name: 'userData', value: string): void;
}

/** Folder names under the OS's application-data folder. */
export const USER_DATA_FOLDER = { packaged: 'Herald', dev: 'Herald-dev' } as const;

/** Environment override of the user-data folder, for tests and development only. */
export const USER_DATA_ENV = 'HERALD_USER_DATA_DIR';

/**
 * resolveUserDataDir() returns the user-data folder: the test override when the app is not
 * packaged and the variable is set, else `<appData>/Herald` (packaged) or `<appData>/Herald-dev`
 * (development), so a developer's experiments never touch their real messages.
 */
export function resolveUserDataDir(input: {
  isPackaged: boolean;
  appDataDir: string;
  env: Record<string, string | undefined>;
}): string {
  const override = input.env[USER_DATA_ENV]?.trim();
  // A shipped app ignores the override: an environment variable must not be able to point a
  // user's Herald at another folder.
  if (!input.isPackaged && override) return path.resolve(override);
  const folder = input.isPackaged ? USER_DATA_FOLDER.packaged : USER_DATA_FOLDER.dev;
  return path.join(input.appDataDir, folder);
}

/** derivePaths() lays out Herald's folders inside a user-data folder. */
export function derivePaths(userDataDir: string): AppPaths {
  return {
    userDataDir,
    // Kept apart from Chromium's Cache/, Local Storage/ … so "Open data folder" shows only
    // Herald's files and a backup copies just this folder.
    dataDir: path.join(userDataDir, 'data'),
    logsDir: path.join(userDataDir, 'logs'),
    settingsDir: userDataDir,
  };
}

/**
 * ensureDirs() creates the folders up front, owner-only: the data folder holds the server's
 * token key and encrypted channel secrets, and the user-data folder Chromium's profile, whose
 * cookie store keeps the window's session in clear (electron-builder.yml turns cookie
 * encryption off). A folder an older Herald created with the umask's mode is narrowed too.
 */
export function ensureDirs(paths: AppPaths): void {
  for (const dir of [paths.userDataDir, paths.dataDir]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Windows has no such modes: the profile folder is the user's by its ACL.
    if (process.platform !== 'win32') chmodSync(dir, 0o700);
  }
  mkdirSync(paths.logsDir, { recursive: true });
}

/**
 * initAppPaths() resolves the folders, points Electron's `userData` at them and creates them.
 * Must run before `app` is ready: Chromium fixes its profile folder at that moment.
 */
export function initAppPaths(
  app: AppPathsLike,
  env: Record<string, string | undefined> = process.env,
): AppPaths {
  const userDataDir = resolveUserDataDir({
    isPackaged: app.isPackaged,
    appDataDir: app.getPath('appData'),
    env,
  });
  app.setPath('userData', userDataDir);
  const paths = derivePaths(app.getPath('userData'));
  ensureDirs(paths);
  return paths;
}
