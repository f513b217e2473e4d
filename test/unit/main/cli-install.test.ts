import { describe, expect, it, vi } from 'vitest';

import {
  bundledCliPath,
  dirOnPath,
  installCommandLineTool,
  installFromMenu,
  LAUNCHER_MARKER,
  launcherDirs,
  launcherText,
  outcomeDialog,
  replaceDialog,
  type CliInstallDeps,
  type CliInstallFs,
} from '../../../main/cli-install';
import type { MessageBoxSpec } from '../../../main/port-choice';

/** An error as node:fs/promises rejects with: a message naming the call, and err.code. */
function fsError(code: string, syscall: string, file: string): NodeJS.ErrnoException {
  const messages: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EEXIST: 'file already exists',
    EISDIR: 'illegal operation on a directory',
  };
  return Object.assign(new Error(`${code}: ${messages[code] ?? code}, ${syscall} '${file}'`), {
    code,
    syscall,
    path: file,
  });
}

const dirname = (file: string) => file.slice(0, file.lastIndexOf('/')) || '/';

/**
 * A POSIX file system in memory that fails the way the real one does: writing into a folder
 * the user may not write is EACCES, into a missing one ENOENT, `wx` over anything (a dangling
 * symlink too) EEXIST, reading a folder EISDIR.
 */
class FakeFs implements CliInstallFs {
  readonly files = new Map<string, { text: string; mode: number }>();
  readonly dirs = new Set<string>(['/']);
  /** Folders that exist but refuse writes (root's /usr/local/bin for a user). */
  readonly readOnly = new Set<string>();
  /** Symlinks whose target is gone: reading says ENOENT, creating says EEXIST. */
  readonly dangling = new Set<string>();

  constructor(dirs: string[] = [], readOnly: string[] = []) {
    for (const dir of [...dirs, ...readOnly]) this.addDir(dir);
    for (const dir of readOnly) this.readOnly.add(dir);
  }

  addDir(dir: string) {
    for (let d = dir; d !== '/'; d = dirname(d)) this.dirs.add(d);
  }

  private writable(file: string, syscall: string) {
    const dir = dirname(file);
    if (!this.dirs.has(dir)) throw fsError('ENOENT', syscall, file);
    if (this.readOnly.has(dir)) throw fsError('EACCES', syscall, file);
  }

  readFile = vi.fn(async (file: string) => {
    if (this.dirs.has(file)) throw fsError('EISDIR', 'read', file);
    const entry = this.files.get(file);
    if (!entry) throw fsError('ENOENT', 'open', file);
    return entry.text;
  });

  writeFile = vi.fn(
    async (file: string, text: string, options: { mode: number; flag: 'w' | 'wx' }) => {
      this.writable(file, 'open');
      const exists = this.files.has(file) || this.dangling.has(file) || this.dirs.has(file);
      if (options.flag === 'wx' && exists) throw fsError('EEXIST', 'open', file);
      this.dangling.delete(file);
      this.files.set(file, { text, mode: this.files.get(file)?.mode ?? options.mode });
    },
  );

  chmod = vi.fn(async (file: string, mode: number) => {
    const entry = this.files.get(file);
    if (!entry) throw fsError('ENOENT', 'chmod', file);
    entry.mode = mode;
  });

  rename = vi.fn(async (from: string, to: string) => {
    const entry = this.files.get(from);
    if (!entry) throw fsError('ENOENT', 'rename', from);
    this.writable(to, 'rename');
    this.files.delete(from);
    this.dangling.delete(to);
    this.files.set(to, entry);
  });

  unlink = vi.fn(async (file: string) => {
    if (!this.files.delete(file)) throw fsError('ENOENT', 'unlink', file);
  });

  mkdir = vi.fn(async (dir: string) => {
    const missing: string[] = [];
    for (let d = dir; !this.dirs.has(d); d = dirname(d)) missing.push(d);
    for (const d of missing.reverse()) {
      if (this.readOnly.has(dirname(d))) throw fsError('EACCES', 'mkdir', d);
      this.dirs.add(d);
    }
    return missing[0];
  });

  canWrite = vi.fn(async (dir: string) => {
    if (!this.dirs.has(dir)) throw fsError('ENOENT', 'access', dir);
    if (this.readOnly.has(dir)) throw fsError('EACCES', 'access', dir);
  });

  copyFile = vi.fn(async (from: string, to: string) => {
    const entry = this.files.get(from);
    if (!entry) throw fsError('ENOENT', 'copyfile', from);
    this.writable(to, 'copyfile');
    this.files.set(to, { ...entry });
  });
}

const BUNDLED = '/opt/Herald/resources/cli/herald.mjs';
const INSTALLED = '/home/ada/.config/Herald/cli/herald.mjs';

function setup(
  fs: FakeFs,
  options: Partial<CliInstallDeps> = {},
): CliInstallDeps & { confirmReplace: ReturnType<typeof vi.fn> } {
  fs.addDir(dirname(BUNDLED));
  fs.files.set(BUNDLED, { text: '// herald send', mode: 0o644 });
  return {
    platform: 'linux',
    env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
    homeDir: '/home/ada',
    bundledCli: BUNDLED,
    installedCli: INSTALLED,
    fs,
    confirmReplace: vi.fn(async () => false),
    ...options,
  } as CliInstallDeps & { confirmReplace: ReturnType<typeof vi.fn> };
}

describe('Install command-line tool', () => {
  it('writes an executable launcher in /usr/local/bin when it is writable, running the copied CLI', async () => {
    const fs = new FakeFs(['/usr/local/bin', '/home/ada']);
    const outcome = await installCommandLineTool(setup(fs));

    expect(outcome).toEqual({
      kind: 'installed',
      launcher: '/usr/local/bin/herald',
      dir: '/usr/local/bin',
      onPath: true,
      action: 'new',
    });
    // The CLI is copied beside the user's data, where an update or an AppImage's mount cannot take it away.
    expect(fs.files.get(INSTALLED)?.text).toBe('// herald send');
    const launcher = fs.files.get('/usr/local/bin/herald')!;
    expect(launcher.mode).toBe(0o755);
    expect(launcher.text).toBe(launcherText('linux', INSTALLED));
    expect(launcher.text).toContain(`exec node '${INSTALLED}' "$@"`);
    expect(fs.writeFile).toHaveBeenCalledWith('/usr/local/bin/herald', expect.any(String), {
      mode: 0o755,
      flag: 'wx',
    });
  });

  it('falls back to ~/.local/bin (created) when /usr/local/bin refuses, and says when it is not on PATH', async () => {
    const fs = new FakeFs(['/home/ada'], ['/usr/local/bin']);
    const outcome = await installCommandLineTool(setup(fs));

    expect(outcome).toEqual({
      kind: 'installed',
      launcher: '/home/ada/.local/bin/herald',
      dir: '/home/ada/.local/bin',
      onPath: false,
      action: 'new',
    });
    expect(fs.dirs.has('/home/ada/.local/bin')).toBe(true);
    expect(fs.files.has('/usr/local/bin/herald')).toBe(false);
    const dialog = outcomeDialog(outcome, 'linux')!;
    expect(dialog.message).toBe('herald installed: /home/ada/.local/bin/herald');
    expect(dialog.detail).toContain('export PATH="/home/ada/.local/bin:$PATH"');
  });

  it('falls back too when /usr/local/bin is missing, and finds ~/.local/bin on PATH', async () => {
    const fs = new FakeFs(['/home/ada/.local/bin']);
    const env = { PATH: '/home/ada/.local/bin/:/usr/bin' };
    const outcome = await installCommandLineTool(setup(fs, { env }));
    expect(outcome).toMatchObject({ kind: 'installed', dir: '/home/ada/.local/bin', onPath: true });
    expect(fs.mkdir).not.toHaveBeenCalledWith('/usr/local/bin', expect.anything());
    expect(outcomeDialog(outcome, 'linux')!.detail).not.toContain('export PATH');
  });

  it('updates its own launcher without asking', async () => {
    const fs = new FakeFs(['/usr/local/bin', '/home/ada']);
    fs.files.set('/usr/local/bin/herald', {
      text: `#!/bin/sh\n# ${LAUNCHER_MARKER}: an older one\nexec node /old/path "$@"\n`,
      mode: 0o755,
    });
    const deps = setup(fs);
    const outcome = await installCommandLineTool(deps);

    expect(outcome).toMatchObject({ kind: 'installed', action: 'updated' });
    expect(deps.confirmReplace).not.toHaveBeenCalled();
    expect(fs.files.get('/usr/local/bin/herald')!.text).toContain(INSTALLED);
    expect(fs.files.has('/usr/local/bin/herald.herald-new')).toBe(false);
    expect(outcomeDialog(outcome, 'linux')!.message).toBe('herald updated: /usr/local/bin/herald');
  });

  it('asks before replacing another program’s herald, and keeps it when told to', async () => {
    const fs = new FakeFs(['/usr/local/bin', '/home/ada']);
    const other = { text: '#!/usr/bin/env node\n// the server install', mode: 0o755 };
    fs.files.set('/usr/local/bin/herald', other);
    const deps = setup(fs);

    const kept = await installCommandLineTool(deps);
    expect(kept).toEqual({ kind: 'cancelled', launcher: '/usr/local/bin/herald' });
    expect(deps.confirmReplace).toHaveBeenCalledWith('/usr/local/bin/herald');
    expect(fs.files.get('/usr/local/bin/herald')).toBe(other);
    // Not quietly put in ~/.local/bin instead, where PATH order would decide which one runs.
    expect(fs.files.has('/home/ada/.local/bin/herald')).toBe(false);
    expect(outcomeDialog(kept, 'linux')).toBeNull();

    deps.confirmReplace.mockResolvedValue(true);
    const replaced = await installCommandLineTool(deps);
    expect(replaced).toMatchObject({ kind: 'installed', action: 'replaced' });
    expect(fs.files.get('/usr/local/bin/herald')!.text).toContain(LAUNCHER_MARKER);
  });

  it('treats a dangling symlink (EEXIST on create) as another program’s file', async () => {
    const fs = new FakeFs(['/usr/local/bin', '/home/ada']);
    fs.dangling.add('/usr/local/bin/herald');
    const deps = setup(fs);
    deps.confirmReplace.mockResolvedValue(true);

    const outcome = await installCommandLineTool(deps);
    expect(deps.confirmReplace).toHaveBeenCalledWith('/usr/local/bin/herald');
    expect(outcome).toMatchObject({ kind: 'installed', action: 'replaced' });
  });

  it('asks about a folder named herald (EISDIR), and reports the failure to replace it', async () => {
    const fs = new FakeFs(['/usr/local/bin/herald', '/home/ada']);
    const deps = setup(fs);
    deps.confirmReplace.mockResolvedValue(true);
    // rename over a folder: the fake lets it through, so make the temporary write fail instead.
    fs.writeFile.mockRejectedValueOnce(
      fsError('EACCES', 'open', '/usr/local/bin/herald.herald-new'),
    );

    const outcome = await installCommandLineTool(deps);
    expect(deps.confirmReplace).toHaveBeenCalledWith('/usr/local/bin/herald');
    // The user's own folder was tried next and took it.
    expect(outcome).toMatchObject({ kind: 'installed', dir: '/home/ada/.local/bin' });
  });

  it('reports every folder it tried when none takes the launcher', async () => {
    const fs = new FakeFs([], ['/usr/local/bin', '/home/ada']);
    fs.addDir(dirname(INSTALLED));
    const outcome = await installCommandLineTool(setup(fs));

    expect(outcome).toEqual({
      kind: 'failed',
      attempts: [
        { dir: '/usr/local/bin', reason: 'permission denied' },
        { dir: '/home/ada/.local/bin', reason: 'permission denied' },
      ],
    });
    const dialog = outcomeDialog(outcome, 'linux')!;
    expect(dialog.type).toBe('error');
    expect(dialog.detail).toBe(
      '/usr/local/bin: permission denied\n/home/ada/.local/bin: permission denied',
    );
  });

  it('removes its temporary file when the replacing rename fails', async () => {
    const fs = new FakeFs(['/usr/local/bin', '/home/ada']);
    fs.files.set('/usr/local/bin/herald', { text: `# ${LAUNCHER_MARKER}`, mode: 0o755 });
    fs.rename.mockRejectedValueOnce(fsError('EACCES', 'rename', '/usr/local/bin/herald'));

    const outcome = await installCommandLineTool(setup(fs));
    expect(fs.files.has('/usr/local/bin/herald.herald-new')).toBe(false);
    expect(fs.files.get('/usr/local/bin/herald')!.text).toBe(`# ${LAUNCHER_MARKER}`);
    expect(outcome).toMatchObject({ kind: 'installed', dir: '/home/ada/.local/bin' });
  });

  it('says so when the app has no CLI to install (ENOENT), writing no launcher', async () => {
    const fs = new FakeFs(['/usr/local/bin', '/home/ada']);
    const deps = setup(fs);
    fs.files.delete(BUNDLED);

    const outcome = await installCommandLineTool(deps);
    expect(outcome).toEqual({ kind: 'no-bundle', bundledCli: BUNDLED, reason: 'no such folder' });
    expect(fs.files.has('/usr/local/bin/herald')).toBe(false);
    expect(outcomeDialog(outcome, 'linux')!.type).toBe('error');
  });

  it('on Windows writes herald.cmd under %LOCALAPPDATA% and tells the user to add it to PATH', () => {
    expect(launcherDirs('win32', { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' }, 'x')).toEqual([
      'C:\\Users\\ada\\AppData\\Local\\Herald\\bin',
    ]);
    expect(launcherDirs('win32', {}, 'C:\\Users\\ada')).toEqual([
      'C:\\Users\\ada\\AppData\\Local\\Herald\\bin',
    ]);
    const text = launcherText(
      'win32',
      'C:\\Users\\ada\\AppData\\Roaming\\Herald 100%\\cli\\herald.mjs',
    );
    expect(text).toContain(
      'node "C:\\Users\\ada\\AppData\\Roaming\\Herald 100%%\\cli\\herald.mjs" %*',
    );
    expect(text).toContain(`rem ${LAUNCHER_MARKER}`);
    expect(text).toContain('^(https://nodejs.org^)');
    expect(text.split('\r\n')[0]).toBe('@echo off');

    const dir = 'C:\\Users\\ada\\AppData\\Local\\Herald\\bin';
    expect(dirOnPath(dir, 'win32', { Path: `C:\\Windows;${dir.toLowerCase()}\\` })).toBe(true);
    expect(dirOnPath(dir, 'win32', { PATH: 'C:\\Windows' })).toBe(false);
    const dialog = outcomeDialog(
      { kind: 'installed', launcher: `${dir}\\herald.cmd`, dir, onPath: false, action: 'new' },
      'win32',
    )!;
    expect(dialog.detail).toContain(`Add ${dir} to your PATH`);
    expect(dialog.detail).toContain('Edit environment variables for your account');
  });

  it('on Windows installs through the same steps, with no writability probe', async () => {
    const written: string[] = [];
    const fs: CliInstallFs = {
      readFile: async (file) => {
        throw fsError('ENOENT', 'open', file);
      },
      writeFile: async (file) => void written.push(file),
      chmod: async () => undefined,
      rename: async () => undefined,
      unlink: async () => undefined,
      mkdir: async () => undefined,
      canWrite: async (dir) => {
        throw fsError('EACCES', 'access', dir);
      },
      copyFile: async () => undefined,
    };
    const outcome = await installCommandLineTool({
      platform: 'win32',
      env: { LOCALAPPDATA: 'C:\\L' },
      homeDir: 'C:\\Users\\ada',
      bundledCli: 'C:\\Herald\\resources\\cli\\herald.mjs',
      installedCli: 'C:\\R\\Herald\\cli\\herald.mjs',
      fs,
      confirmReplace: async () => false,
    });
    expect(outcome).toEqual({
      kind: 'installed',
      launcher: 'C:\\L\\Herald\\bin\\herald.cmd',
      dir: 'C:\\L\\Herald\\bin',
      onPath: false,
      action: 'new',
    });
    expect(written).toEqual(['C:\\L\\Herald\\bin\\herald.cmd']);
  });

  it('quotes the CLI path for sh, and counts /usr/local/bin on PATH on macOS (launchd’s PATH lacks it)', () => {
    expect(
      launcherText('darwin', "/Users/o'neil/Library/Application Support/Herald/cli/herald.mjs"),
    ).toContain(
      `exec node '/Users/o'\\''neil/Library/Application Support/Herald/cli/herald.mjs' "$@"`,
    );
    expect(dirOnPath('/usr/local/bin', 'darwin', { PATH: '/usr/bin:/bin' })).toBe(true);
    expect(dirOnPath('/usr/local/bin', 'linux', { PATH: '/usr/bin:/bin' })).toBe(false);
    expect(dirOnPath('/home/ada/.local/bin', 'darwin', { PATH: '/usr/bin' })).toBe(false);
    expect(dirOnPath('/x', 'linux', {})).toBe(false);
  });

  it('finds the shipped CLI in the resources folder when packaged, in out/cli otherwise', () => {
    expect(bundledCliPath(true, '/opt/Herald/resources', '/x/out/main')).toBe(
      '/opt/Herald/resources/cli/herald.mjs',
    );
    expect(bundledCliPath(false, '/dev/electron/resources', '/repo/out/main')).toBe(
      '/repo/out/cli/herald.mjs',
    );
  });

  it('the replace question keeps the other herald unless Replace is pressed', () => {
    const dialog = replaceDialog('/usr/local/bin/herald');
    expect(dialog.spec.buttons).toEqual(['Keep it', 'Replace']);
    expect([dialog.spec.defaultId, dialog.spec.cancelId]).toEqual([0, 0]);
    expect([dialog.replace(0), dialog.replace(1)]).toEqual([false, true]);
  });

  it('from the menu: asks through a message box, then shows how it went', async () => {
    const fs = new FakeFs(['/usr/local/bin', '/home/ada']);
    fs.files.set('/usr/local/bin/herald', { text: 'someone else', mode: 0o755 });
    const { confirmReplace: _ask, ...deps } = setup(fs);
    const shown: MessageBoxSpec[] = [];
    const answers = [1, 0];
    const outcome = await installFromMenu(deps, async (spec) => {
      shown.push(spec);
      return { response: answers.shift()! };
    });
    expect(outcome).toMatchObject({ kind: 'installed', action: 'replaced' });
    expect(shown.map((s) => [s.type, s.message])).toEqual([
      ['question', '/usr/local/bin/herald already exists'],
      ['info', 'herald installed: /usr/local/bin/herald'],
    ]);
  });
});
