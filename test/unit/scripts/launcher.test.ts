import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { ElectronInstall } from '../../../main/headless-decision';
import {
  launch,
  locateElectron,
  requestStop,
  runElectronChild,
  type LaunchDeps,
} from '../../../scripts/launcher';

/**
 * `npm start`'s desktop branch with real child processes standing in for Electron: one that
 * dies the way Chromium does when Ubuntu's AppArmor refuses its sandbox (the FATAL line on
 * stderr, then SIGTRAP), one that exits on its own, and one that waits for the launcher's stop
 * request on standard input, as the real app does on Windows.
 */

// Chromium's own line, as users of Ubuntu 24.04 report it.
const SANDBOX_FATAL =
  "[77996:0908/150845.938417:FATAL:sandbox/linux/suid/client/setuid_sandbox_host.cc:166] The SUID sandbox helper binary was found, but is not configured correctly. Rather than run without sandboxing I'm aborting now. You need to make sure that /opt/electron/chrome-sandbox is owned by root and has mode 4755.";

describe.skipIf(process.platform === 'win32')('npm start with Electron', () => {
  let temp: string;

  beforeEach(() => {
    temp = mkdtempSync(path.join(tmpdir(), 'herald-launch-'));
    // The desktop branch needs a display on Linux.
    vi.stubEnv('DISPLAY', ':99');
    vi.stubEnv('HERALD_HEADLESS', '');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(temp, { recursive: true, force: true });
  });

  /** Writes an executable shell script standing in for the Electron binary. */
  function fakeElectron(name: string, body: string): string {
    const file = path.join(temp, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  function deps(binary: string, overrides: Partial<LaunchDeps> = {}) {
    const said: string[] = [];
    const exits: number[] = [];
    const headless: string[][] = [];
    const stderr = new PassThrough();
    const value: LaunchDeps = {
      locateElectron: () => ({ state: 'installed', binary }),
      buildMain: async () => ({ mainFile: path.join(temp, 'index.js') }),
      runElectron: (bin, mainFile) => runElectronChild(bin, [mainFile], { cwd: temp, stderr }),
      runHeadless: async (argv) => void headless.push(argv),
      ensureConsoleBuilt: () => undefined,
      exit: (code) => void exits.push(code),
      log: (message) => void said.push(message),
      warn: (message) => void said.push(message),
      ...overrides,
    };
    return { value, said, exits, headless };
  }

  it('launch() recognises the AppArmor sandbox abort, prints both fixes and runs Herald headless', async () => {
    const binary = fakeElectron('electron', `echo "${SANDBOX_FATAL}" >&2\nkill -TRAP $$`);
    const d = deps(binary);

    await launch(['--port', '9000'], d.value);

    expect(d.exits).toEqual([]);
    expect(d.headless).toEqual([['--port', '9000']]);
    const advice = d.said.join('\n');
    expect(advice).toContain(
      'sudo chown root:root /opt/electron/chrome-sandbox && sudo chmod 4755 /opt/electron/chrome-sandbox',
    );
    expect(advice).toContain(`profile herald-electron "${binary}" flags=(unconfined)`);
    expect(advice).toContain('Starting Herald headless instead');
  });

  it('launch() passes an ordinary exit code through and does not fall back', async () => {
    const d = deps(fakeElectron('electron', 'exit 3'));

    await launch([], d.value);

    expect(d.exits).toEqual([3]);
    expect(d.headless).toEqual([]);
  });

  it('launch() treats another crash as a failure, not as the sandbox problem', async () => {
    const d = deps(
      fakeElectron(
        'electron',
        'echo "[1:2:ERROR:gpu_init.cc] GPU process exited" >&2\nkill -SEGV $$',
      ),
    );

    await launch([], d.value);

    expect(d.exits).toEqual([1]);
    expect(d.headless).toEqual([]);
  });

  it('runElectronChild() passes stderr through, keeps its tail, and removes its signal handlers', async () => {
    const stderr = new PassThrough();
    const seen: string[] = [];
    stderr.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
    const before = process.listenerCount('SIGINT');

    const exit = await runElectronChild(
      fakeElectron('electron', 'echo "launcher control: $HERALD_LAUNCHER_CONTROL" >&2\nexit 0'),
      [],
      { cwd: temp, stderr },
    );

    expect(exit).toEqual({
      code: 0,
      signal: null,
      stderrTail: 'launcher control: stdin\n',
    });
    expect(seen.join('')).toBe('launcher control: stdin\n');
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  it('requestStop() on Windows asks through standard input, so the app shuts down in order', async () => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        // The app's side (main/launcher-control.ts), reduced: a quit line, then a clean exit.
        "process.stdin.on('data', (d) => { if (String(d).trim() === 'quit') { process.stderr.write('ordered shutdown'); process.exit(0); } });",
      ],
      { stdio: ['pipe', 'ignore', 'pipe'] },
    );
    let said = '';
    child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('close', (code, signal) => resolve([code, signal])),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));

    requestStop(child, 'SIGINT', 'win32');

    expect(await ended).toEqual([0, null]);
    expect(said).toBe('ordered shutdown');
  });

  it('requestStop() elsewhere passes the signal on', async () => {
    const child = spawn('sleep', ['30'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('close', (_code, signal) => resolve(signal)),
    );

    requestStop(child, 'SIGTERM', 'linux');

    expect(await ended).toBe('SIGTERM');
  });
});

describe('npm start without a working Electron', () => {
  let temp: string;
  let from: string;

  beforeEach(() => {
    temp = mkdtempSync(path.join(tmpdir(), 'herald-electron-'));
    // Resolved from here, as scripts/launcher.ts resolves from itself.
    from = pathToFileURL(path.join(temp, 'launcher.js')).href;
  });
  afterEach(() => rmSync(temp, { recursive: true, force: true }));

  /**
   * An electron package as npm lays it out: its index.js is electron's own logic, reading the
   * binary's path from path.txt, which its install script writes once the download is done.
   */
  function electronPackage(files: { pathTxt?: string; binary?: string; index?: string } = {}) {
    const dir = path.join(temp, 'node_modules', 'electron');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'electron', main: 'index.js' }),
    );
    writeFileSync(
      path.join(dir, 'index.js'),
      files.index ??
        `const fs = require('fs'); const path = require('path');
         const pathFile = path.join(__dirname, 'path.txt');
         if (!fs.existsSync(pathFile)) throw new Error('Electron failed to install correctly, please delete node_modules/electron and try installing again');
         module.exports = path.join(__dirname, 'dist', fs.readFileSync(pathFile, 'utf-8'));`,
    );
    if (files.pathTxt !== undefined) writeFileSync(path.join(dir, 'path.txt'), files.pathTxt);
    if (files.binary !== undefined) {
      mkdirSync(path.join(dir, 'dist'), { recursive: true });
      writeFileSync(path.join(dir, 'dist', files.binary), '');
    }
    return dir;
  }

  it('locateElectron() tells no package and a package never downloaded (absent) from one that is broken', () => {
    expect(locateElectron(from)).toEqual({ state: 'absent', packagePresent: false });

    const dir = electronPackage();
    expect(locateElectron(from)).toEqual({ state: 'absent', packagePresent: true });

    writeFileSync(path.join(dir, 'path.txt'), 'electron');
    expect(locateElectron(from)).toEqual({
      state: 'broken',
      error: `its binary is missing at ${path.join(dir, 'dist', 'electron')}`,
    });

    mkdirSync(path.join(dir, 'dist'));
    writeFileSync(path.join(dir, 'dist', 'electron'), '');
    expect(locateElectron(from)).toEqual({
      state: 'installed',
      binary: path.join(dir, 'dist', 'electron'),
    });
  });

  it('locateElectron() keeps the raw error of an installed package that throws', () => {
    electronPackage({
      pathTxt: 'electron',
      index: "throw new Error('libnss3.so: cannot open shared object file\\nmore detail');",
    });
    expect(locateElectron(from)).toEqual({
      state: 'broken',
      error: 'libnss3.so: cannot open shared object file',
    });
  });

  async function startedSaying(electron: ElectronInstall): Promise<string[]> {
    const said: string[] = [];
    const headless: string[][] = [];
    await launch(['--port', '9000'], {
      locateElectron: () => electron,
      buildMain: () => Promise.reject(new Error('no desktop app without Electron')),
      runElectron: () => Promise.reject(new Error('no desktop app without Electron')),
      runHeadless: async (argv) => void headless.push(argv),
      ensureConsoleBuilt: () => undefined,
      exit: () => undefined,
      log: (message) => void said.push(message),
      warn: (message) => void said.push(message),
    });
    expect(headless).toEqual([['--port', '9000']]);
    return said;
  }

  it('launch() says plainly that Electron is not installed, as expected on a server, and how to get the window', async () => {
    vi.stubEnv('HERALD_HEADLESS', '');
    try {
      const said = await startedSaying({ state: 'absent', packagePresent: true });
      expect(said).toEqual([
        "Starting Herald headless: Electron isn't installed, which is expected on a server: Herald serves its console to your browser instead of opening a window.",
        '  For the desktop window instead, on a computer with a display and internet access, download its binary with `node node_modules/electron/install.js`, then `npm start` again.',
      ]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('launch() shows the raw error where Electron is installed but broken', async () => {
    vi.stubEnv('HERALD_HEADLESS', '');
    try {
      const said = await startedSaying({
        state: 'broken',
        error: 'libnss3.so: cannot open shared object file',
      });
      expect(said[0]).toBe(
        'Starting Herald headless: Electron is installed but cannot start (libnss3.so: cannot open shared object file).',
      );
      expect(said[1]).toContain('delete node_modules/electron and run `npm install`');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
