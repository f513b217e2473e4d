import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import {
  USER_DATA_ENV,
  derivePaths,
  initAppPaths,
  resolveUserDataDir,
  type AppPathsLike,
} from '../../../main/paths';

const appDataDir = path.join(path.sep, 'home', 'ada', '.config');

describe('resolveUserDataDir', () => {
  it('resolveUserDataDir() uses <appData>/Herald for the packaged app', () => {
    expect(resolveUserDataDir({ isPackaged: true, appDataDir, env: {} })).toBe(
      path.join(appDataDir, 'Herald'),
    );
  });

  it('resolveUserDataDir() keeps development data apart in <appData>/Herald-dev', () => {
    expect(resolveUserDataDir({ isPackaged: false, appDataDir, env: {} })).toBe(
      path.join(appDataDir, 'Herald-dev'),
    );
  });

  it('resolveUserDataDir() honours HERALD_USER_DATA_DIR when not packaged, as an absolute path', () => {
    const dir = resolveUserDataDir({
      isPackaged: false,
      appDataDir,
      env: { [USER_DATA_ENV]: 'tmp/herald-test' },
    });

    expect(dir).toBe(path.resolve('tmp/herald-test'));
  });

  it('resolveUserDataDir() ignores HERALD_USER_DATA_DIR in the packaged app', () => {
    expect(
      resolveUserDataDir({
        isPackaged: true,
        appDataDir,
        env: { [USER_DATA_ENV]: '/tmp/elsewhere' },
      }),
    ).toBe(path.join(appDataDir, 'Herald'));
  });

  it('resolveUserDataDir() ignores a blank override', () => {
    expect(
      resolveUserDataDir({ isPackaged: false, appDataDir, env: { [USER_DATA_ENV]: '  ' } }),
    ).toBe(path.join(appDataDir, 'Herald-dev'));
  });
});

describe('derivePaths', () => {
  it('derivePaths() puts Herald’s data, logs and settings under the user-data folder', () => {
    const root = path.join(appDataDir, 'Herald');

    expect(derivePaths(root)).toEqual({
      userDataDir: root,
      dataDir: path.join(root, 'data'),
      logsDir: path.join(root, 'logs'),
      settingsDir: root,
    });
  });
});

describe('initAppPaths', () => {
  let temp: string | undefined;
  afterEach(() => {
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  function fakeApp(isPackaged: boolean, appData: string) {
    const paths: Record<string, string> = { appData };
    const app: AppPathsLike = {
      isPackaged,
      getPath: (name) => {
        const value = paths[name];
        if (!value) throw new Error(`no path ${name}`);
        return value;
      },
      setPath: (name, value) => void (paths[name] = value),
    };
    return { app, paths };
  }

  it('initAppPaths() points Electron’s userData at the resolved folder and creates the folders', () => {
    temp = mkdtempSync(path.join(tmpdir(), 'herald-paths-'));
    const { app, paths } = fakeApp(true, temp);

    const result = initAppPaths(app, {});

    expect(paths.userData).toBe(path.join(temp, 'Herald'));
    expect(statSync(result.dataDir).isDirectory()).toBe(true);
    expect(statSync(result.logsDir).isDirectory()).toBe(true);
  });

  it.skipIf(process.platform === 'win32')(
    'initAppPaths() makes the data and user-data folders owner-only, narrowing an older one',
    () => {
      temp = mkdtempSync(path.join(tmpdir(), 'herald-paths-'));
      const { app } = fakeApp(false, temp);
      // What an older Herald left: the user-data folder with the umask's mode.
      mkdirSync(path.join(temp, 'Herald-dev'), { mode: 0o755 });
      chmodSync(path.join(temp, 'Herald-dev'), 0o755);

      const result = initAppPaths(app, {});

      expect(statSync(result.dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(result.userDataDir).mode & 0o777).toBe(0o700);
    },
  );

  it('initAppPaths() uses the test override for an unpackaged app', () => {
    temp = mkdtempSync(path.join(tmpdir(), 'herald-paths-'));
    const override = path.join(temp, 'custom');
    const { app, paths } = fakeApp(false, path.join(temp, 'appdata'));

    initAppPaths(app, { [USER_DATA_ENV]: override });

    expect(paths.userData).toBe(override);
  });
});
