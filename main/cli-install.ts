import { constants, promises as fsp } from 'node:fs';
import path from 'node:path';

import type { MessageBoxSpec } from './port-choice';

/**
 * "Install command-line tool" (the app menu): puts a `herald` launcher on the user's PATH that
 * runs the app's `herald send` (out/cli/herald.mjs, shipped as an extra resource). Effects come
 * in (file system, platform, paths, dialogs), so every branch is tested with fakes.
 *
 * Why the user's `node` and not Electron's: the packaged binary's runAsNode fuse is off
 * (electron-builder.yml), so `ELECTRON_RUN_AS_NODE=1 Herald …` would start the desktop app
 * instead. Why a copy in the user-data folder: an AppImage's resources live in a mount that is
 * gone once the app quits, and an update replaces the app's folder; the copy stays put.
 * Why a script rather than a symlink: it says, in its marker line, that Herald wrote it, so a
 * second install updates it quietly and anything else is never overwritten without asking.
 */

/** The line that tells our launcher from any other `herald`. */
export const LAUNCHER_MARKER = 'herald-desktop-cli-launcher';

/** The file-system calls the install makes, failing as node:fs/promises does (err.code). */
export interface CliInstallFs {
  readFile(file: string): Promise<string>;
  /** `flag: 'wx'` fails with EEXIST when the file exists (a dangling symlink included). */
  writeFile(file: string, text: string, options: { mode: number; flag: 'w' | 'wx' }): Promise<void>;
  chmod(file: string, mode: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  mkdir(dir: string, options: { recursive: true }): Promise<unknown>;
  /** Resolves when `dir` is writable; rejects (ENOENT, EACCES, EROFS) otherwise. */
  canWrite(dir: string): Promise<void>;
  copyFile(from: string, to: string): Promise<void>;
}

export interface CliInstallDeps {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  /** app.getPath('home'). */
  homeDir: string;
  /** The shipped CLI: `<process.resourcesPath>/cli/herald.mjs` packaged, out/cli in development. */
  bundledCli: string;
  /** Where the launcher's CLI is kept: `<userData>/cli/herald.mjs`. */
  installedCli: string;
  fs: CliInstallFs;
  /** Asks before a `herald` that Herald did not write is replaced; true replaces it. */
  confirmReplace(file: string): Promise<boolean>;
}

export type CliInstallOutcome =
  | {
      kind: 'installed';
      launcher: string;
      dir: string;
      /** Whether a terminal finds `herald` without the user changing PATH. */
      onPath: boolean;
      /** new: nothing was there; updated: our launcher was; replaced: another `herald` was. */
      action: 'new' | 'updated' | 'replaced';
    }
  | { kind: 'cancelled'; launcher: string }
  | { kind: 'no-bundle'; bundledCli: string; reason: string }
  | { kind: 'failed'; attempts: Array<{ dir: string; reason: string }> };

const pathFor = (platform: NodeJS.Platform) => (platform === 'win32' ? path.win32 : path.posix);

const codeOf = (err: unknown): string | undefined => (err as { code?: string } | null)?.code;

const reasonOf = (err: unknown): string => {
  const code = codeOf(err);
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'read-only file system';
  if (code === 'ENOENT') return 'no such folder';
  return err instanceof Error ? err.message : String(err);
};

/**
 * Where the launcher may go, best first. macOS and Linux: /usr/local/bin (on every terminal's
 * PATH, writable on many Macs with Homebrew), else ~/.local/bin (the XDG place for a user's own
 * commands). Windows: a folder of the user's own under %LOCALAPPDATA%, which the user adds to
 * PATH (Herald edits no registry key).
 */
export function launcherDirs(
  platform: NodeJS.Platform,
  env: Record<string, string | undefined>,
  homeDir: string,
): string[] {
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA || path.win32.join(homeDir, 'AppData', 'Local');
    return [path.win32.join(local, 'Herald', 'bin')];
  }
  return ['/usr/local/bin', path.posix.join(homeDir, '.local', 'bin')];
}

/**
 * Whether `dir` is on the PATH a terminal gets. macOS gives apps started from the Finder
 * launchd's short PATH, not the shell's; /usr/local/bin is in /etc/paths, so every terminal has
 * it whatever this process sees.
 */
export function dirOnPath(
  dir: string,
  platform: NodeJS.Platform,
  env: Record<string, string | undefined>,
): boolean {
  if (platform === 'darwin' && dir === '/usr/local/bin') return true;
  const win = platform === 'win32';
  const value = (win ? (env.PATH ?? env.Path) : env.PATH) ?? '';
  const normal = (d: string) => {
    const trimmed = d.replace(win ? /[\\/]+$/ : /\/+$/, '');
    return win ? trimmed.toLowerCase() : trimmed;
  };
  return value
    .split(win ? ';' : ':')
    .filter(Boolean)
    .some((entry) => normal(entry) === normal(dir));
}

/** Who wrote a launcher, as its comment says: the menu item, or the Linux .deb package. */
export type LauncherOrigin = 'menu' | 'deb';

const ORIGIN_NOTE: Record<LauncherOrigin, string[]> = {
  menu: [
    'written by the Herald desktop app (Install command-line tool).',
    'Choose the menu item again after updating Herald.',
  ],
  deb: [
    "installed by Herald's .deb package: runs the CLI the package ships.",
    'The desktop app itself is herald-desktop.',
  ],
};

/** The launcher's text: finds `node`, then runs the CLI at `cli` with every argument. */
export function launcherText(
  platform: NodeJS.Platform,
  cli: string,
  origin: LauncherOrigin = 'menu',
): string {
  const missingNode = 'herald: Node.js 20 or later must be on PATH (https://nodejs.org)';
  const [written, later] = ORIGIN_NOTE[origin];
  if (platform === 'win32') {
    // In a batch file % expands even inside quotes; Windows paths hold no double quote.
    const quoted = `"${cli.replace(/%/g, '%%')}"`;
    return [
      '@echo off',
      `rem ${LAUNCHER_MARKER}: ${written}`,
      `where node >nul 2>nul || (echo ${missingNode.replace(/[()]/g, '^$&')} 1>&2 & exit /b 127)`,
      `node ${quoted} %*`,
      'exit /b %ERRORLEVEL%',
      '',
    ].join('\r\n');
  }
  const quoted = `'${cli.replace(/'/g, `'\\''`)}'`;
  return [
    '#!/bin/sh',
    `# ${LAUNCHER_MARKER}: ${written}`,
    `# ${later}`,
    'if ! command -v node >/dev/null 2>&1; then',
    `  echo '${missingNode}' >&2`,
    '  exit 127',
    'fi',
    `exec node ${quoted} "$@"`,
    '',
  ].join('\n');
}

/** Writes `text` over `file` through a temporary file, so a failure leaves the old one whole. */
async function replaceFile(fs: CliInstallFs, file: string, text: string): Promise<void> {
  const temporary = `${file}.herald-new`;
  try {
    await fs.writeFile(temporary, text, { mode: 0o755, flag: 'w' });
    // The mode of writeFile applies only to a file it creates; a leftover keeps its own.
    await fs.chmod(temporary, 0o755);
    await fs.rename(temporary, file);
  } catch (err) {
    await fs.unlink(temporary).catch(() => undefined);
    throw err;
  }
}

/** What is at the launcher's place: nothing, our launcher, or something else. */
async function existing(fs: CliInstallFs, file: string): Promise<'none' | 'ours' | 'other'> {
  try {
    return (await fs.readFile(file)).includes(LAUNCHER_MARKER) ? 'ours' : 'other';
  } catch (err) {
    // A dangling symlink reads as ENOENT too: writing with 'wx' finds it (EEXIST).
    return codeOf(err) === 'ENOENT' ? 'none' : 'other';
  }
}

class Cancelled extends Error {}

/** Puts the launcher in one folder; throws Cancelled when the user keeps another `herald`. */
async function installIn(
  deps: CliInstallDeps,
  dir: string,
  file: string,
  text: string,
): Promise<'new' | 'updated' | 'replaced'> {
  const found = await existing(deps.fs, file);
  if (found === 'none') {
    try {
      await deps.fs.writeFile(file, text, { mode: 0o755, flag: 'wx' });
      return 'new';
    } catch (err) {
      if (codeOf(err) !== 'EEXIST') throw err;
    }
  }
  if (found !== 'ours' && !(await deps.confirmReplace(file))) throw new Cancelled();
  await replaceFile(deps.fs, file, text);
  return found === 'ours' ? 'updated' : 'replaced';
}

/** Copies the CLI beside the user's data, then writes the launcher in the first folder that takes it. */
export async function installCommandLineTool(deps: CliInstallDeps): Promise<CliInstallOutcome> {
  const p = pathFor(deps.platform);
  try {
    await deps.fs.mkdir(p.dirname(deps.installedCli), { recursive: true });
    await deps.fs.copyFile(deps.bundledCli, deps.installedCli);
  } catch (err) {
    return { kind: 'no-bundle', bundledCli: deps.bundledCli, reason: reasonOf(err) };
  }
  const text = launcherText(deps.platform, deps.installedCli);
  const name = deps.platform === 'win32' ? 'herald.cmd' : 'herald';
  const dirs = launcherDirs(deps.platform, deps.env, deps.homeDir);
  const attempts: Array<{ dir: string; reason: string }> = [];
  for (const [i, dir] of dirs.entries()) {
    const file = p.join(dir, name);
    try {
      // The system folder is used only as it is; the user's own is created when missing.
      if (i === 0 && deps.platform !== 'win32') await deps.fs.canWrite(dir);
      else await deps.fs.mkdir(dir, { recursive: true });
      const action = await installIn(deps, dir, file, text);
      return {
        kind: 'installed',
        launcher: file,
        dir,
        onPath: dirOnPath(dir, deps.platform, deps.env),
        action,
      };
    } catch (err) {
      if (err instanceof Cancelled) return { kind: 'cancelled', launcher: file };
      attempts.push({ dir, reason: reasonOf(err) });
    }
  }
  return { kind: 'failed', attempts };
}

/** The question before another program's `herald` is replaced; Keep is the default. */
export function replaceDialog(file: string): {
  spec: MessageBoxSpec;
  replace(response: number): boolean;
} {
  return {
    spec: {
      type: 'question',
      title: 'Install command-line tool',
      message: `${file} already exists`,
      detail:
        'It was not installed by Herald’s desktop app (it may be the server install’s herald, ' +
        'or another program). Replace it with the desktop app’s herald send?',
      buttons: ['Keep it', 'Replace'],
      defaultId: 0,
      cancelId: 0,
      noLink: true,
    },
    replace: (response) => response === 1,
  };
}

const box = (type: MessageBoxSpec['type'], message: string, detail: string): MessageBoxSpec => ({
  type,
  title: 'Install command-line tool',
  message,
  detail,
  buttons: ['OK'],
  defaultId: 0,
  cancelId: 0,
  noLink: true,
});

const USE =
  'Try it in a new terminal: herald send --help. It needs Node.js 20 or later on PATH ' +
  '(https://nodejs.org). After updating Herald, choose Install command-line tool again.';

/** What the user is told afterwards; nothing after they chose to keep another `herald`. */
export function outcomeDialog(
  outcome: CliInstallOutcome,
  platform: NodeJS.Platform,
): MessageBoxSpec | null {
  switch (outcome.kind) {
    case 'cancelled':
      return null;
    case 'no-bundle':
      return box(
        'error',
        'This Herald has no command-line tool to install',
        `${outcome.bundledCli}: ${outcome.reason}. Build it with npm run build:main, or reinstall Herald.`,
      );
    case 'failed':
      return box(
        'error',
        'The command-line tool could not be installed',
        outcome.attempts.map((a) => `${a.dir}: ${a.reason}`).join('\n'),
      );
    case 'installed': {
      const verb = outcome.action === 'updated' ? 'updated' : 'installed';
      if (outcome.onPath) return box('info', `herald ${verb}: ${outcome.launcher}`, USE);
      const howTo =
        platform === 'win32'
          ? `Add ${outcome.dir} to your PATH: search the Start menu for “Edit environment ` +
            'variables for your account”, edit Path, add the folder, then open a new terminal.'
          : `${outcome.dir} is not on the PATH Herald was started with. If a terminal does not ` +
            'find herald, add this line to your shell’s profile (~/.profile, ~/.bashrc or ' +
            `~/.zshrc) and open a new terminal:\nexport PATH="${outcome.dir}:$PATH"`;
      return box('info', `herald ${verb}: ${outcome.launcher}`, `${howTo}\n\n${USE}`);
    }
  }
}

/** The file system as the install uses it: node:fs/promises. */
export const nodeCliInstallFs: CliInstallFs = {
  readFile: (file) => fsp.readFile(file, 'utf8'),
  writeFile: (file, text, options) => fsp.writeFile(file, text, options),
  chmod: (file, mode) => fsp.chmod(file, mode),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (file) => fsp.unlink(file),
  mkdir: (dir, options) => fsp.mkdir(dir, options),
  canWrite: (dir) => fsp.access(dir, constants.W_OK),
  copyFile: (from, to) => fsp.copyFile(from, to),
};

/**
 * The shipped CLI: electron-builder.yml's extraResources put it in the resources folder
 * (process.resourcesPath); unpackaged, that folder is Electron's own, so the build output is used.
 */
export function bundledCliPath(
  isPackaged: boolean,
  resourcesPath: string | undefined,
  mainDir: string,
): string {
  return isPackaged && resourcesPath
    ? path.join(resourcesPath, 'cli', 'herald.mjs')
    : path.join(mainDir, '..', 'cli', 'herald.mjs');
}

/** The menu item's whole job: install, asking through message boxes, and say how it went. */
export async function installFromMenu(
  deps: Omit<CliInstallDeps, 'confirmReplace'>,
  showMessageBox: (spec: MessageBoxSpec) => Promise<{ response: number }>,
): Promise<CliInstallOutcome> {
  const outcome = await installCommandLineTool({
    ...deps,
    confirmReplace: async (file) => {
      const dialog = replaceDialog(file);
      return dialog.replace((await showMessageBox(dialog.spec)).response);
    },
  });
  const spec = outcomeDialog(outcome, deps.platform);
  if (spec) await showMessageBox(spec);
  return outcome;
}
