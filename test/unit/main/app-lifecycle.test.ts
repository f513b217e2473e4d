import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { runDesktopApp, type DesktopAppDeps, type ProcessLike } from '../../../main/app-lifecycle';
import type { BootContext, Desktop } from '../../../main/boot';
import type { EmbeddedServer } from '../../../main/server-contract';
import type { SettingsStoreLike } from '../../../main/settings';
import type { ShutdownStep } from '../../../main/shutdown';
import { DataDirLockedError } from '../../../server/data-dir/lock';
import { createLogger } from '../../../server/lib/logger';
import { createFakeElectron, Emitter, type FakeElectron } from '../../mocks/electron';

/**
 * runDesktopApp(), the whole of main/index.ts's former body, driven with the recording Electron
 * stand-in and a fake process: the single-instance lock, the log file, the start-failure
 * dialog and every way the app is asked to stop, on each platform's branch.
 */

class FakeProcess extends Emitter implements ProcessLike {
  env: Record<string, string | undefined>;
  argv: string[] = ['/opt/Herald/herald-desktop'];
  execPath = '/opt/Herald/herald-desktop';
  stdin?: PassThrough;
  constructor(
    readonly platform: NodeJS.Platform,
    env: Record<string, string | undefined>,
  ) {
    super();
    this.env = env;
  }
  signal(name: 'SIGINT' | 'SIGTERM') {
    this.emit(name);
  }
}

function memoryStore(): SettingsStoreLike {
  return { store: {}, set: () => undefined };
}

/** A booted desktop whose shutdown steps and calls are recorded. */
function fakeDesktop(steps: ShutdownStep[] = []) {
  const calls: string[] = [];
  const desktop: Desktop = {
    server: {} as EmbeddedServer,
    showWindow: () => void calls.push('show'),
    releaseNow: () => void calls.push('release-now'),
    shutdownSteps: () => [
      { name: 'close server', timeoutMs: 1_000, run: () => void calls.push('close') },
      ...steps,
    ],
  };
  return { desktop, calls };
}

/** A before-quit event that remembers whether it was held. */
function quitEvent() {
  const event = { held: false, preventDefault: () => void (event.held = true) };
  return event;
}

describe('runDesktopApp', () => {
  let temp: string;
  let electron: FakeElectron;
  const runs: Array<{ stopLogging(): void }> = [];

  beforeEach(() => {
    temp = mkdtempSync(path.join(tmpdir(), 'herald-lifecycle-'));
    electron = createFakeElectron(temp);
    // Tests are quiet by default; the log file is part of what is checked here.
    vi.stubEnv('HERALD_LOG', 'info');
  });
  afterEach(() => {
    for (const started of runs.splice(0)) started.stopLogging();
    vi.unstubAllEnvs();
    rmSync(temp, { recursive: true, force: true });
  });

  function run(
    platform: NodeJS.Platform,
    boot: (ctx: BootContext) => Promise<Desktop | null>,
    options: {
      env?: Record<string, string | undefined>;
      traySupported?: boolean;
      loadServer?: DesktopAppDeps['loadServer'];
      store?: SettingsStoreLike;
      argv?: string[];
    } = {},
  ) {
    const proc = new FakeProcess(platform, {
      HERALD_USER_DATA_DIR: path.join(temp, 'userData'),
      ...options.env,
    });
    if (options.env?.HERALD_LAUNCHER_CONTROL) proc.stdin = new PassThrough();
    if (options.argv) proc.argv = options.argv;
    const contexts: BootContext[] = [];
    const deps: DesktopAppDeps = {
      electron,
      process: proc,
      loadServer:
        options.loadServer ??
        (async () => async () => {
          throw new Error('not used: boot is replaced');
        }),
      openSettingsStore: () => options.store ?? memoryStore(),
      mainDir: path.join(temp, 'out', 'main'),
      version: '9.9.9-test',
      log: createLogger('desktop'),
      detectTray: async () => options.traySupported ?? true,
      boot: async (ctx) => {
        contexts.push(ctx);
        return boot(ctx);
      },
    };
    const result = runDesktopApp(deps);
    runs.push(result);
    return { result, proc, contexts };
  }

  const logText = (userData: string) =>
    readFileSync(path.join(userData, 'logs', 'herald.log'), 'utf8');

  it('runDesktopApp() exits at once without booting when another instance holds the lock', async () => {
    electron.singleInstance = false;
    const boot = vi.fn();

    const { result } = run('linux', boot);
    await result.started;

    expect(result.primary).toBe(false);
    expect(electron.exits).toEqual([0]);
    expect(boot).not.toHaveBeenCalled();
    // The running instance owns the log file; a second start leaves it alone.
    expect(existsSync(path.join(result.paths.logsDir, 'herald.log'))).toBe(false);
  });

  it('runDesktopApp() boots with the machine’s tray default and the platform, and writes its log file', async () => {
    const { desktop } = fakeDesktop();
    const { result, contexts } = run('linux', async () => desktop, { traySupported: false });
    await result.started;

    expect(result.primary).toBe(true);
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({ platform: 'linux', traySupported: false });
    expect(contexts[0]!.settings.get().minimizeToTray).toBe(false);
    expect(electron.exits).toEqual([]);
    expect(logText(result.paths.userDataDir)).toContain('Herald 9.9.9-test starting (linux)');
  });

  it('runDesktopApp() shows the running window for a second launch and on macOS re-activation', async () => {
    const { desktop, calls } = fakeDesktop();
    const { result } = run('darwin', async () => desktop);
    await result.started;

    electron.appEvents.emit('second-instance');
    electron.appEvents.emit('activate');

    expect(calls).toEqual(['show', 'show']);
  });

  it('runDesktopApp() quits when the last window closes, except on macOS', async () => {
    for (const [platform, quits] of [
      ['linux', 1],
      ['win32', 1],
      ['darwin', 0],
    ] as const) {
      electron = createFakeElectron(temp);
      const { result } = run(platform, async () => fakeDesktop().desktop);
      await result.started;
      electron.appEvents.emit('window-all-closed');
      expect([platform, electron.quits]).toEqual([platform, quits]);
    }
  });

  it('runDesktopApp() holds the quit while the ordered shutdown runs once, then exits 0', async () => {
    const { desktop, calls } = fakeDesktop([
      { name: 'remove tray', timeoutMs: 1_000, run: () => void calls.push('tray') },
    ]);
    const { result } = run('linux', async () => desktop);
    await result.started;

    const first = quitEvent();
    const second = quitEvent();
    electron.appEvents.emit('before-quit', first);
    electron.appEvents.emit('before-quit', second);
    await vi.waitFor(() => expect(electron.exits).toEqual([0]));

    expect(first.held).toBe(true);
    expect(second.held).toBe(true);
    expect(calls).toEqual(['close', 'tray']);
    expect(result.shutdownResults()).toEqual([
      { name: 'close server', outcome: 'done' },
      { name: 'remove tray', outcome: 'done' },
    ]);
  });

  it('runDesktopApp() exits 1 and logs the step when a shutdown step fails or times out', async () => {
    const { desktop } = fakeDesktop([
      {
        name: 'stuck',
        timeoutMs: 20,
        run: () => new Promise<void>(() => undefined),
      },
    ]);
    const { result } = run('linux', async () => desktop);
    await result.started;

    electron.appEvents.emit('before-quit', quitEvent());
    await vi.waitFor(() => expect(electron.exits).toEqual([1]));
    expect(logText(result.paths.userDataDir)).toContain('shutdown: stuck timed-out');
  });

  it('runDesktopApp() turns SIGINT and SIGTERM into a quit that runs the ordered shutdown', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      electron = createFakeElectron(temp);
      const { desktop, calls } = fakeDesktop();
      const { result, proc } = run('linux', async () => desktop);
      await result.started;

      proc.signal(signal);

      await vi.waitFor(() => expect(electron.exits).toEqual([0]));
      expect(electron.quits).toBe(1);
      expect(calls).toEqual(['close']);
    }
  });

  it('runDesktopApp() quits on the launcher’s `quit` line or when the launcher goes away', async () => {
    const { desktop } = fakeDesktop();
    const asked = run('win32', async () => desktop, { env: { HERALD_LAUNCHER_CONTROL: 'stdin' } });
    await asked.result.started;
    asked.proc.stdin!.write('quit\r\n');
    await vi.waitFor(() => expect(electron.exits).toEqual([0]));

    electron = createFakeElectron(temp);
    const gone = run('win32', async () => fakeDesktop().desktop, {
      env: { HERALD_LAUNCHER_CONTROL: 'stdin' },
    });
    await gone.result.started;
    gone.proc.stdin!.end();
    await vi.waitFor(() => expect(electron.exits).toEqual([0]));
  });

  it('runDesktopApp() ignores standard input without the launcher’s variable, and in a packaged app', async () => {
    const plain = run('win32', async () => fakeDesktop().desktop, { env: {} });
    plain.proc.stdin = new PassThrough();
    await plain.result.started;

    electron = createFakeElectron(temp);
    (electron.app as { isPackaged: boolean }).isPackaged = true;
    const packaged = run('win32', async () => fakeDesktop().desktop, {
      env: { HERALD_LAUNCHER_CONTROL: 'stdin' },
    });
    await packaged.result.started;
    packaged.proc.stdin!.write('quit\n');
    packaged.proc.stdin!.end();
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(electron.quits).toBe(0);
  });

  it('runDesktopApp() starts the shutdown on a Linux or macOS shutdown and never holds the quit then', async () => {
    for (const platform of ['linux', 'darwin'] as const) {
      electron = createFakeElectron(temp);
      let release!: () => void;
      const slow = new Promise<void>((resolve) => (release = resolve));
      const { desktop, calls } = fakeDesktop([{ name: 'slow', timeoutMs: 5_000, run: () => slow }]);
      const { result } = run(platform, async () => desktop);
      await result.started;

      const shutdown = quitEvent();
      electron.powerEvents.emit('shutdown', shutdown);
      // The OS then quits the app: holding before-quit here would cancel a macOS logout.
      const osQuit = quitEvent();
      electron.appEvents.emit('before-quit', osQuit);

      expect(shutdown.held).toBe(true);
      expect(osQuit.held).toBe(false);
      // The synchronous release happened at once; the ordered shutdown is under way.
      expect(calls).toEqual(['release-now']);
      await vi.waitFor(() => expect(calls).toEqual(['release-now', 'close']));
      release();
      await vi.waitFor(() => expect(electron.exits).toEqual([0]));
    }
  });

  it('runDesktopApp() listens for powerMonitor shutdown only where Electron emits it (Linux, macOS)', async () => {
    const { result } = run('win32', async () => fakeDesktop().desktop);
    await result.started;

    expect(electron.powerEvents.listeners.get('shutdown') ?? []).toHaveLength(0);
  });

  it('runDesktopApp() on Windows starts the shutdown at query-session-end and releases the folder at session-end', async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const { desktop, calls } = fakeDesktop([{ name: 'slow', timeoutMs: 5_000, run: () => slow }]);
    const { result, contexts } = run('win32', async () => desktop);
    await result.started;

    contexts[0]!.onSessionEnding();
    expect(contexts[0]!.isQuitting()).toBe(true);
    await vi.waitFor(() => expect(calls).toEqual(['close']));
    contexts[0]!.onSessionEnd();
    const osQuit = quitEvent();
    electron.appEvents.emit('before-quit', osQuit);

    expect(calls).toEqual(['close', 'release-now', 'release-now']);
    expect(osQuit.held).toBe(false);
    release();
    await vi.waitFor(() => expect(electron.exits).toEqual([0]));
  });

  it('runDesktopApp() shows why the start failed, without a stack trace, and exits 1', async () => {
    const locked = new DataDirLockedError('/data', 4242);
    const { result } = run('linux', async () => {
      throw locked;
    });
    await result.started;

    expect(electron.exits).toEqual([1]);
    expect(electron.errorBoxes).toHaveLength(1);
    const box = electron.errorBoxes[0]!;
    expect(box.title).toBe('Herald is already running');
    expect(box.content).toContain('pid 4242');
    expect(box.content).toContain(path.join(result.paths.logsDir, 'herald.log'));
    expect(box.content).not.toMatch(/\n\s+at /);
    // The stack is kept where it helps: in the log file.
    expect(logText(result.paths.userDataDir)).toMatch(
      /start-up failed DataDirLockedError[^]*\n\s+at /,
    );
  });

  it('runDesktopApp() gives a native module that fails to load its own dialog and log line, not Electron’s error box', async () => {
    // The error Node really throws for a broken addon: a .node file that is no shared object
    // (as a truncated or quarantined file is), loaded the way the bindings package loads it.
    const addon = path.join(temp, 'node_modules', 'better-sqlite3', 'build', 'Release');
    mkdirSync(addon, { recursive: true });
    writeFileSync(path.join(addon, 'better_sqlite3.node'), 'not a shared object');
    let dlopenError: unknown;
    try {
      process.dlopen({ exports: {} }, path.join(addon, 'better_sqlite3.node'));
    } catch (err) {
      dlopenError = err;
    }
    expect((dlopenError as NodeJS.ErrnoException).code).toBe('ERR_DLOPEN_FAILED');
    const boot = vi.fn();

    const { result } = run('linux', boot, {
      loadServer: async () => {
        throw dlopenError;
      },
    });
    await result.started;

    expect(boot).not.toHaveBeenCalled();
    expect(electron.exits).toEqual([1]);
    expect(electron.errorBoxes).toHaveLength(1);
    const box = electron.errorBoxes[0]!;
    expect(box.title).toBe('Herald could not start');
    expect(box.content).toContain('its better-sqlite3 module');
    expect(box.content).toContain(path.join(result.paths.logsDir, 'herald.log'));
    expect(box.content).not.toMatch(/\n\s+at /);
    expect(logText(result.paths.userDataDir)).toMatch(
      /start-up failed Error: [^\n]*better_sqlite3\.node/,
    );
  });

  it('runDesktopApp() in a packaged app drops the developers’ and the database variables before the server loads', async () => {
    (electron.app as { isPackaged: boolean }).isPackaged = true;
    const env = {
      HERALD_WRITE_WORKER_FILE: '/tmp/evil.js',
      HERALD_TEST_LEASE_MS: '1000',
      HERALD_DATABASE_URL: 'postgres://herald@db.example/herald',
      HERALD_SECRET_KEY: 'base64:AAAA',
      HERALD_LOG: 'info',
    };
    let seenByServer: Record<string, string | undefined> | null = null;
    const { result, proc, contexts } = run('linux', async () => fakeDesktop().desktop, {
      env,
      loadServer: async () => {
        // The server's modules read the environment as they load: it must be clean by now.
        seenByServer = { ...proc.env };
        return async () => {
          throw new Error('not used: boot is replaced');
        };
      },
    });
    await result.started;

    for (const name of Object.keys(env).filter((n) => n !== 'HERALD_LOG')) {
      expect([name, seenByServer?.[name]]).toEqual([name, undefined]);
    }
    expect(seenByServer).toMatchObject({ HERALD_LOG: 'info' });
    expect(contexts[0]!.ignoredDatabaseVariables).toEqual([
      'HERALD_DATABASE_URL',
      'HERALD_SECRET_KEY',
    ]);
    const log = logText(result.paths.userDataDir);
    expect(log).toContain(
      "ignored developers' variables in the packaged app: HERALD_TEST_LEASE_MS, HERALD_WRITE_WORKER_FILE",
    );
    expect(log).toContain(
      'ignored HERALD_DATABASE_URL, HERALD_SECRET_KEY: the desktop app keeps its data in',
    );
  });

  it('runDesktopApp() in a packaged app follows the database variables when config.json opts in', async () => {
    (electron.app as { isPackaged: boolean }).isPackaged = true;
    let seenByServer: Record<string, string | undefined> | null = null;
    const { result, proc, contexts } = run('linux', async () => fakeDesktop().desktop, {
      env: {
        HERALD_DATABASE_URL: 'postgres://herald@db.example/herald',
        HERALD_TEST_CRASH_AT: 'x',
      },
      store: { store: { databaseFromEnvironment: true }, set: () => undefined },
      loadServer: async () => {
        seenByServer = { ...proc.env };
        return async () => {
          throw new Error('not used: boot is replaced');
        };
      },
    });
    await result.started;

    expect(seenByServer).toMatchObject({
      HERALD_DATABASE_URL: 'postgres://herald@db.example/herald',
    });
    expect(seenByServer).not.toHaveProperty('HERALD_TEST_CRASH_AT');
    expect(contexts[0]!.ignoredDatabaseVariables).toEqual([]);
  });

  it('runDesktopApp() in a development run leaves the environment as it was', async () => {
    const env = { HERALD_WRITE_WORKER_FILE: '/w.js', HERALD_DATABASE_URL: 'postgres://h@db/h' };
    const { result, proc } = run('linux', async () => fakeDesktop().desktop, { env });
    await result.started;

    expect(proc.env).toMatchObject(env);
    expect(logText(result.paths.userDataDir)).not.toContain('ignored');
  });

  it('runDesktopApp() starts hidden when started at login: --hidden on Windows and Linux, wasOpenedAtLogin on macOS', async () => {
    const cases: Array<[NodeJS.Platform, string[], boolean, boolean]> = [
      ['win32', ['Herald.exe', '--hidden'], false, true],
      ['linux', ['/opt/Herald/herald-desktop', '--hidden'], false, true],
      ['linux', ['/opt/Herald/herald-desktop'], false, false],
      ['darwin', ['/Applications/Herald.app/Contents/MacOS/Herald'], true, true],
      ['darwin', ['/Applications/Herald.app/Contents/MacOS/Herald'], false, false],
    ];
    for (const [platform, argv, openedAtLogin, hidden] of cases) {
      electron = createFakeElectron(temp);
      electron.loginItems.platform = platform;
      electron.loginItems.openedAtLogin = openedAtLogin;
      const { result, proc, contexts } = run(platform, async () => fakeDesktop().desktop, {
        argv,
      });
      await result.started;
      expect([platform, proc.argv, contexts[0]!.startHidden]).toEqual([platform, argv, hidden]);
    }
  });

  it('runDesktopApp() exits 0 without a dialog when the user quits at the port question', async () => {
    const { result } = run('linux', async () => null);
    await result.started;

    expect(electron.exits).toEqual([0]);
    expect(electron.errorBoxes).toEqual([]);
  });

  it('runDesktopApp() sets the Windows app user model id (notifications need it) and only there', async () => {
    const ids: string[] = [];
    electron.app.setAppUserModelId = (id) => void ids.push(id);
    await run('linux', async () => null).result.started;
    expect(ids).toEqual([]);
    await run('win32', async () => null).result.started;
    expect(ids).toEqual(['org.herald.desktop']);
  });
});
