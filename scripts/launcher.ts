/**
 * `npm start`: opens the desktop app where Electron is installed and a display exists,
 * otherwise runs Herald headless (the same server and console at the printed URL) and says
 * why. `--headless` or HERALD_HEADLESS=1 forces headless; other arguments (--port, --data-dir,
 * --host) go to the headless server. scripts/start.mjs runs this file compiled
 * (out/server/launcher.js, see scripts/build-server.mjs), so headless Herald runs in the
 * launcher's own process; `tsx scripts/launcher.ts` runs it from the sources.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { decideLaunchMode, type ElectronInstall } from '../main/headless-decision';
import { QUIT_LINE } from '../main/launcher-control';
import { sandboxFailureAdvice } from '../main/sandbox-failure';
import { appRoot } from '../server/lib/app-root';

const root = appRoot(import.meta.url);

/**
 * Where Electron stands, as resolved from `from` (this file; a test passes a folder of its own).
 * The electron package's main export is the path of the binary its install script downloaded,
 * which it records in path.txt beside its index.js; without that file it throws "Electron failed
 * to install correctly…", which only means the download never happened: absent, not broken.
 */
export function locateElectron(from: string = import.meta.url): ElectronInstall {
  const require = createRequire(from);
  let main: string;
  try {
    main = require.resolve('electron');
  } catch {
    return { state: 'absent', packagePresent: false };
  }
  let binary: unknown;
  try {
    binary = require(main);
  } catch (err) {
    if (!existsSync(path.join(path.dirname(main), 'path.txt'))) {
      return { state: 'absent', packagePresent: true };
    }
    const message = err instanceof Error ? err.message : String(err);
    return { state: 'broken', error: message.split('\n')[0] };
  }
  if (typeof binary !== 'string') {
    return { state: 'broken', error: 'the electron package did not give the path of its binary' };
  }
  if (!existsSync(binary)) return { state: 'broken', error: `its binary is missing at ${binary}` };
  return { state: 'installed', binary };
}

/**
 * A fresh clone has no built console: build it once (about a minute) rather than serving a
 * Herald whose URL shows nothing. Later starts reuse renderer/dist; `npm run build` refreshes it.
 */
export function ensureConsoleBuilt(): void {
  if (existsSync(path.join(root, 'renderer', 'dist', 'index.html'))) return;
  console.log('Building the console once (renderer/dist is missing)…');
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(
    process.execPath,
    [vite, 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) {
    console.warn(
      'Building the console failed: Herald starts, but its URL shows no console until `npm run build` succeeds.',
    );
  }
}

/** How the Electron child ended, with the end of what it wrote to stderr. */
export interface ElectronExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
}

/** Bytes of Electron's stderr kept for recognising a start failure. */
const STDERR_TAIL_BYTES = 16 * 1024;

/**
 * requestStop() asks the Electron child to run its ordered shutdown. On Windows `child.kill()`
 * is TerminateProcess, which would skip it: the child is asked through its standard input
 * instead (main/launcher-control.ts). Elsewhere the signal is passed on.
 */
export function requestStop(
  child: Pick<ChildProcess, 'kill' | 'stdin'>,
  signal: NodeJS.Signals,
  platform: NodeJS.Platform,
): void {
  if (platform === 'win32') {
    if (child.stdin && !child.stdin.destroyed) child.stdin.write(`${QUIT_LINE}\n`);
    return;
  }
  child.kill(signal);
}

/**
 * runElectronChild() starts Electron on `mainFile` and resolves when it exits. Its stderr is
 * passed through to ours as it comes, and its tail is kept so a sandbox failure can be told
 * apart from an ordinary exit. SIGINT and SIGTERM sent to the launcher reach Electron as a stop
 * request (see {@link requestStop}); so does the launcher going away, since Electron's standard
 * input is the launcher's pipe.
 */
export function runElectronChild(
  binary: string,
  args: string[],
  options: { cwd: string; platform?: NodeJS.Platform; stderr?: NodeJS.WritableStream } = {
    cwd: root,
  },
): Promise<ElectronExit> {
  const platform = options.platform ?? process.platform;
  const out = options.stderr ?? process.stderr;
  const env: Record<string, string | undefined> = {
    ...process.env,
    HERALD_LAUNCHER_CONTROL: 'stdin',
  };
  // Set by some tools (and left behind by tests); it would start Electron as plain Node.
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(binary, args, {
    cwd: options.cwd,
    stdio: ['pipe', 'inherit', 'pipe'],
    env,
    windowsHide: false,
  });
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    out.write(chunk);
    tail = (tail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  // A child that exits closes its end; writing after that must not crash the launcher.
  child.stdin?.on('error', () => undefined);
  const forward = (signal: NodeJS.Signals) => () => requestStop(child, signal, platform);
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return new Promise<ElectronExit>((resolve, reject) => {
    child.once('error', (err) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      reject(err);
    });
    child.once('close', (code, signal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve({ code, signal, stderrTail: tail });
    });
  });
}

/** What launch() uses, replaceable in tests. */
export interface LaunchDeps {
  locateElectron(): ElectronInstall;
  buildMain(): Promise<{ mainFile: string }>;
  runElectron(binary: string, mainFile: string): Promise<ElectronExit>;
  runHeadless(argv: string[]): Promise<void>;
  ensureConsoleBuilt(): void;
  exit(code: number): void;
  log(message: string): void;
  warn(message: string): void;
}

const defaultDeps: LaunchDeps = {
  locateElectron: () => locateElectron(),
  buildMain: async () => (await import('./build-main')).buildMain(),
  runElectron: (binary, mainFile) => runElectronChild(binary, [mainFile], { cwd: root }),
  runHeadless: async (argv) => (await import('../server/cli')).runHeadless(argv),
  ensureConsoleBuilt,
  exit: (code) => process.exit(code),
  log: (message) => console.log(message),
  warn: (message) => console.warn(message),
};

/** Decides how to run, builds the console if it is missing, and runs Herald. */
export async function launch(argv: string[], deps: LaunchDeps = defaultDeps): Promise<void> {
  const headlessFlag = argv.includes('--headless');
  const forwarded = argv.filter((arg) => arg !== '--headless');
  const decision = decideLaunchMode({
    platform: process.platform,
    electron: deps.locateElectron(),
    env: process.env,
    headlessFlag,
  });
  deps.ensureConsoleBuilt();
  if (decision.mode === 'electron') {
    const { mainFile } = await deps.buildMain();
    if (forwarded.length > 0) {
      deps.warn(`Ignored in the desktop app (headless only): ${forwarded.join(' ')}`);
    }
    const exit = await deps.runElectron(decision.electronBinary, mainFile);
    const clean = exit.code === 0 && exit.signal === null;
    const advice = clean ? null : sandboxFailureAdvice(exit.stderrTail, decision.electronBinary);
    if (advice === null) {
      deps.exit(exit.code ?? (exit.signal ? 1 : 0));
      return;
    }
    deps.warn(`\n${advice}\n`);
    await deps.runHeadless(forwarded);
    return;
  }
  deps.log(`Starting Herald headless: ${decision.reason}.`);
  if (decision.advice) deps.log(`  ${decision.advice}`);
  await deps.runHeadless(forwarded);
}

const isMain =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  launch(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
