import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  AUTOSTART_FILE,
  AUTOSTART_MARKER,
  autostartDir,
  autostartEntry,
  createLoginItem,
  execArgument,
  nodeAutostartFs,
  startedAtLogin,
  type AutostartFs,
  type LoginItemAppLike,
} from '../../../main/login-item';
import { FakeLoginItems } from '../../mocks/electron';

/** The login items of one OS, behind Electron's two calls, as the fake models them. */
function fakeApp(platform: NodeJS.Platform, isPackaged = true) {
  const items = new FakeLoginItems();
  items.platform = platform;
  const app: LoginItemAppLike = {
    isPackaged,
    setLoginItemSettings: (settings) => items.set(settings),
    getLoginItemSettings: (options) => items.get(options),
  };
  return { app, items };
}

/** An in-memory file system that fails as node:fs/promises does. */
class MemoryFs implements AutostartFs {
  files = new Map<string, string>();
  dirs = new Set<string>(['/home/ada', '/home/ada/.config']);
  /** Folders where creating or writing fails with EACCES. */
  readOnly = new Set<string>();
  private fail(code: string, file: string): never {
    throw Object.assign(new Error(`${code}: ${file}`), { code });
  }
  async readFile(file: string) {
    const text = this.files.get(file);
    if (text === undefined) this.fail('ENOENT', file);
    return text;
  }
  async writeFile(file: string, text: string) {
    const dir = path.posix.dirname(file);
    if (!this.dirs.has(dir)) this.fail('ENOENT', file);
    if (this.readOnly.has(dir)) this.fail('EACCES', file);
    this.files.set(file, text);
  }
  async rename(from: string, to: string) {
    const text = this.files.get(from);
    if (text === undefined) this.fail('ENOENT', from);
    if (this.readOnly.has(path.posix.dirname(to))) this.fail('EACCES', to);
    this.files.delete(from);
    this.files.set(to, text);
  }
  async unlink(file: string) {
    if (!this.files.delete(file)) this.fail('ENOENT', file);
  }
  async mkdir(dir: string) {
    if (this.dirs.has(dir)) return;
    if (this.readOnly.has(path.posix.dirname(dir))) this.fail('EACCES', dir);
    this.dirs.add(dir);
  }
}

const linux = (fs: AutostartFs, env: Record<string, string | undefined> = {}) =>
  createLoginItem({
    platform: 'linux',
    app: fakeApp('linux').app,
    env,
    execPath: '/opt/Herald/herald-desktop',
    homeDir: '/home/ada',
    fs,
  });
const ENTRY = '/home/ada/.config/autostart/herald.desktop';

describe('startedAtLogin', () => {
  it('startedAtLogin() reads --hidden on Windows and Linux, and wasOpenedAtLogin on macOS', () => {
    const { app, items } = fakeApp('darwin');
    expect(startedAtLogin('win32', ['C:\\Herald\\Herald.exe', '--hidden'], app)).toBe(true);
    expect(startedAtLogin('linux', ['/opt/Herald/herald-desktop', '--hidden'], app)).toBe(true);
    expect(startedAtLogin('linux', ['/opt/Herald/herald-desktop'], app)).toBe(false);
    // macOS login items take no arguments: a --hidden there proves nothing.
    expect(startedAtLogin('darwin', ['/Applications/Herald.app', '--hidden'], app)).toBe(false);
    items.openedAtLogin = true;
    expect(startedAtLogin('darwin', ['/Applications/Herald.app'], app)).toBe(true);
  });
});

describe('the Linux autostart entry', () => {
  it('autostartDir() follows an absolute XDG_CONFIG_HOME and ignores a relative one', () => {
    expect(autostartDir({}, '/home/ada')).toBe('/home/ada/.config/autostart');
    expect(autostartDir({ XDG_CONFIG_HOME: '/cfg' }, '/home/ada')).toBe('/cfg/autostart');
    expect(autostartDir({ XDG_CONFIG_HOME: 'cfg' }, '/home/ada')).toBe(
      '/home/ada/.config/autostart',
    );
  });

  it('execArgument() quotes and escapes as the Desktop Entry Specification asks', () => {
    expect(execArgument('/opt/Herald/herald-desktop')).toBe('/opt/Herald/herald-desktop');
    expect(execArgument('/home/ada/My Apps/Herald.AppImage')).toBe(
      '"/home/ada/My Apps/Herald.AppImage"',
    );
    expect(execArgument('/home/a$b/"x"\\`y`.AppImage')).toBe(
      '"/home/a\\$b/\\"x\\"\\\\\\`y\\`.AppImage"',
    );
    expect(execArgument('/home/ada/100%/Herald')).toBe('/home/ada/100%%/Herald');
  });

  it('apply(true) writes the entry, hidden at login, starting the AppImage file itself', async () => {
    const fs = new MemoryFs();
    const item = linux(fs, { APPIMAGE: '/home/ada/Apps/Herald 1.0.AppImage' });

    await item.apply(true);

    const text = fs.files.get(ENTRY)!;
    expect(text).toContain('Exec="/home/ada/Apps/Herald 1.0.AppImage" --hidden\n');
    expect(text).toContain(AUTOSTART_MARKER);
    expect([...fs.files.keys()]).toEqual([ENTRY]);
    await expect(item.state()).resolves.toEqual({
      supported: true,
      openAtLogin: true,
      attention: null,
    });
  });

  it('state() reads an entry the desktop turned off (Hidden, X-GNOME-Autostart-enabled) as off', async () => {
    const fs = new MemoryFs();
    const item = linux(fs);
    await item.apply(true);
    for (const off of ['Hidden=true', 'X-GNOME-Autostart-enabled=false']) {
      fs.files.set(
        ENTRY,
        autostartEntry('/opt/Herald/herald-desktop').replace('X-GNOME-Autostart-enabled=true', off),
      );
      expect((await item.state()).openAtLogin, off).toBe(false);
    }
    fs.files.delete(ENTRY);
    expect((await item.state()).openAtLogin).toBe(false);
  });

  it('apply(false) removes Herald’s entry and leaves a herald.desktop the user wrote', async () => {
    const fs = new MemoryFs();
    const item = linux(fs);
    await item.apply(true);
    await item.apply(false);
    expect(fs.files.has(ENTRY)).toBe(false);
    await item.apply(false);

    fs.dirs.add('/home/ada/.config/autostart');
    fs.files.set(ENTRY, '[Desktop Entry]\nType=Application\nExec=herald-desktop --my-flags\n');
    await item.apply(false);
    expect(fs.files.get(ENTRY)).toContain('--my-flags');
  });

  it('refresh() points Herald’s entry at an AppImage that moved, and nothing else', async () => {
    const fs = new MemoryFs();
    await linux(fs, { APPIMAGE: '/home/ada/Herald-1.0.AppImage' }).apply(true);

    await linux(fs, { APPIMAGE: '/home/ada/Herald-1.1.AppImage' }).refresh();
    expect(fs.files.get(ENTRY)).toContain('Exec=/home/ada/Herald-1.1.AppImage --hidden');

    fs.files.set(ENTRY, '[Desktop Entry]\nExec=mine\n');
    await linux(fs).refresh();
    expect(fs.files.get(ENTRY)).toBe('[Desktop Entry]\nExec=mine\n');
  });

  it('apply(true) fails with the file system’s reason and leaves no half-written file', async () => {
    const fs = new MemoryFs();
    fs.dirs.add('/home/ada/.config/autostart');
    fs.readOnly.add('/home/ada/.config/autostart');
    await expect(linux(fs).apply(true)).rejects.toMatchObject({ code: 'EACCES' });
    expect([...fs.files.keys()]).toEqual([]);

    const noConfig = new MemoryFs();
    noConfig.readOnly.add('/home/ada/.config');
    await expect(linux(noConfig).apply(true)).rejects.toMatchObject({ code: 'EACCES' });
  });

  describe('on the real file system', () => {
    let home: string;
    beforeEach(() => {
      home = mkdtempSync(path.join(tmpdir(), 'herald-autostart-'));
    });
    afterEach(() => rmSync(home, { recursive: true, force: true }));

    it('writes an entry desktop-file-validate accepts, in a folder it creates', async (context) => {
      const item = createLoginItem({
        platform: 'linux',
        app: fakeApp('linux').app,
        env: { APPIMAGE: path.join(home, 'My Apps', 'Herald-1.0.AppImage') },
        execPath: '/tmp/.mount_Herald/herald-desktop',
        homeDir: home,
        fs: nodeAutostartFs,
      });

      await item.apply(true);

      const file = path.join(home, '.config', 'autostart', AUTOSTART_FILE);
      expect(readFileSync(file, 'utf8')).toContain(`Exec="${home}/My Apps/Herald-1.0.AppImage"`);
      // desktop-file-utils, from Debian's packages (.ci/run installs it).
      const validator = '/usr/bin/desktop-file-validate';
      if (!existsSync(validator)) {
        context.skip('desktop-file-validate is not installed (apt-get install desktop-file-utils)');
      }
      expect(execFileSync(validator, ['--no-hints', file], { encoding: 'utf8' })).toBe('');
      await item.apply(false);
      expect(existsSync(file)).toBe(false);
    });
  });
});

describe('the Windows login item', () => {
  const windows = () => {
    const fake = fakeApp('win32');
    return {
      ...fake,
      item: createLoginItem({
        platform: 'win32',
        app: fake.app,
        env: {},
        execPath: 'C:\\Users\\ada\\AppData\\Local\\Programs\\Herald\\Herald.exe',
        homeDir: 'C:\\Users\\ada',
        fs: new MemoryFs(),
      }),
    };
  };

  it('apply() registers Herald with --hidden, and state() finds it by the same arguments', async () => {
    const { item, items } = windows();

    await item.apply(true);

    expect(items.calls).toEqual([{ openAtLogin: true, args: ['--hidden'] }]);
    expect(items.runValue).toMatch(/" --hidden$/);
    await expect(item.state()).resolves.toEqual({
      supported: true,
      openAtLogin: true,
      attention: null,
    });
    await item.apply(false);
    expect(items.runValue).toBeNull();
    expect((await item.state()).openAtLogin).toBe(false);
  });

  it('state() says when Task Manager’s Startup apps turned Herald off', async () => {
    const { item, items } = windows();
    await item.apply(true);

    items.runEnabled = false;

    await expect(item.state()).resolves.toEqual({
      supported: true,
      openAtLogin: false,
      attention: 'disabled-by-user',
    });
  });

  it('state() still sees an entry an older Herald registered without --hidden', async () => {
    const { app, item, items } = windows();
    app.setLoginItemSettings({ openAtLogin: true });

    // Asked with --hidden, Electron's openAtLogin misses it; the executable's entry is found.
    expect(items.get({ args: ['--hidden'] }).openAtLogin).toBe(false);
    await expect(item.state()).resolves.toMatchObject({ openAtLogin: true, attention: null });
  });

  it('refresh() registers an older Herald’s entry again with --hidden, and leaves a turned-off one off', async () => {
    const { app, item, items } = windows();
    app.setLoginItemSettings({ openAtLogin: true });

    await item.refresh();
    expect(items.runValue).toMatch(/" --hidden$/);
    await item.refresh();
    expect(items.calls).toHaveLength(2);

    const off = windows();
    off.app.setLoginItemSettings({ openAtLogin: true });
    off.items.runEnabled = false;
    await off.item.refresh();
    expect(off.items.calls).toHaveLength(1);
    expect(off.items.runValue).not.toMatch(/--hidden/);
  });
});

describe('the macOS login item', () => {
  it('apply() registers the app and state() says when System Settings must approve it', async () => {
    const { app, items } = fakeApp('darwin');
    items.macNeedsApproval = true;
    const item = createLoginItem({
      platform: 'darwin',
      app,
      env: {},
      execPath: '/Applications/Herald.app/Contents/MacOS/Herald',
      homeDir: '/Users/ada',
      fs: new MemoryFs(),
    });

    await item.apply(true);

    // No arguments: a macOS login item takes none.
    expect(items.calls).toEqual([{ openAtLogin: true }]);
    await expect(item.state()).resolves.toEqual({
      supported: true,
      openAtLogin: false,
      attention: 'requires-approval',
    });
    items.macNeedsApproval = false;
    await item.apply(true);
    await expect(item.state()).resolves.toMatchObject({ openAtLogin: true, attention: null });
  });
});

describe('createLoginItem', () => {
  it('createLoginItem() registers nothing from a development run, on any OS', async () => {
    for (const platform of ['win32', 'darwin', 'linux'] as const) {
      const { app, items } = fakeApp(platform, false);
      const fs = new MemoryFs();
      const item = createLoginItem({
        platform,
        app,
        env: {},
        execPath: '/repo/node_modules/electron/dist/electron',
        homeDir: '/home/ada',
        fs,
      });

      await item.apply(true);

      expect([platform, item.supported, items.calls, fs.files.size]).toEqual([
        platform,
        false,
        [],
        0,
      ]);
      expect((await item.state()).supported).toBe(false);
    }
  });
});
