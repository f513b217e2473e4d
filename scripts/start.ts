/**
 * `npm start`: opens the desktop app where Electron is installed and a display exists,
 * otherwise runs Herald headless (the same server and console at the printed URL) and says
 * why. `--headless` or HERALD_HEADLESS=1 forces headless; other arguments (--port, --data-dir,
 * --host) go to the headless server. scripts/start.mjs runs this file compiled
 * (out/server/launcher.js, see scripts/build-server.mjs), so headless Herald runs in the
 * launcher's own process; `tsx scripts/start.ts` runs it from the sources.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { decideLaunchMode } from '../main/headless-decision';
import { appRoot } from '../server/lib/app-root';

const root = appRoot(import.meta.url);

/** Where the Electron binary is, or why there is none. */
export function locateElectron(): { binary: string | null; problem?: string } {
  try {
    // The electron npm package's main export is the path of the binary it downloaded; it
    // throws when the download never happened.
    const binary: unknown = createRequire(import.meta.url)('electron');
    if (typeof binary !== 'string') return { binary: null, problem: 'unexpected electron module' };
    if (!existsSync(binary)) return { binary: null, problem: `binary missing at ${binary}` };
    return { binary };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { binary: null, problem: message.split('\n')[0] };
  }
}

/**
 * A fresh clone has no built console: build it once (about a minute) rather than serving a
 * Herald whose URL shows nothing. Later starts reuse renderer/dist; `npm run build` refreshes it.
 */
function ensureConsoleBuilt(): void {
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

async function runElectron(binary: string, forwarded: string[]): Promise<never> {
  const { buildMain } = await import('./build-main');
  const { mainFile } = await buildMain();
  if (forwarded.length > 0) {
    console.warn(`Ignored in the desktop app (headless only): ${forwarded.join(' ')}`);
  }
  const env = { ...process.env };
  // Set by some tools (and left behind by tests); it would start Electron as plain Node.
  delete env.ELECTRON_RUN_AS_NODE;
  const child = spawn(binary, [mainFile], { cwd: root, stdio: 'inherit', env });
  // Ctrl-C reaches both processes through the terminal; a SIGTERM sent to this launcher alone
  // (a service manager) is passed on so Electron runs its ordered shutdown.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => child.kill(signal));
  }
  return new Promise<never>((_resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  });
}

/** Decides how to run, builds the console if it is missing, and runs Herald. */
export async function launch(argv: string[]): Promise<void> {
  const headlessFlag = argv.includes('--headless');
  const forwarded = argv.filter((arg) => arg !== '--headless');
  const electron = locateElectron();
  const decision = decideLaunchMode({
    platform: process.platform,
    electronBinary: electron.binary,
    electronProblem: electron.problem,
    env: process.env,
    headlessFlag,
  });
  ensureConsoleBuilt();
  if (decision.mode === 'electron') {
    await runElectron(decision.electronBinary, forwarded);
    return;
  }
  console.log(`Starting Herald headless: ${decision.reason}.`);
  const { runHeadless } = await import('../server/cli');
  await runHeadless(forwarded);
}

const isMain =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  launch(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
