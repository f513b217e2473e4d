/**
 * Bundles the Electron main process and the preload with esbuild:
 *   main/index.ts          → out/main/index.js    (ESM, Node target, the server bundled in)
 *   main/preload/index.ts  → out/preload/index.cjs (CommonJS: a sandboxed preload cannot load ESM)
 *   WORKER_ENTRIES         → out/main/write-worker.js, backup-worker.js, delivery-worker.js (the worker threads,
 *                            each found beside the bundle that starts it)
 *   cli/desktop.ts         → out/cli/herald.mjs   (`herald send` in one file, for the desktop
 *                            app's "Install command-line tool"; packaged as an extra resource)
 * and copies the runtime icons to out/main/assets/. Run: `npm run build:main`.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

import { launcherText } from '../main/cli-install';
import { appRoot } from '../server/lib/app-root';
import {
  BUNDLE_EXTERNALS,
  bundlePlugins,
  esmRequireBanner,
  workerEntryPoints,
} from './build-server.mjs';

// Found by walking up: this file also runs bundled into out/server/launcher.js.
const root = appRoot(import.meta.url);

/**
 * Files the main process loads at run time from out/main/assets: the window icon, the tray
 * icons (colour for Windows and Linux, a black "template" pair that macOS tints for light and
 * dark menu bars) and the taskbar overlay Windows shows while messages are unread.
 */
export const RUNTIME_ASSETS = [
  'icon.png',
  'tray.png',
  'tray@2x.png',
  'trayTemplate.png',
  'trayTemplate@2x.png',
  'unread-overlay.png',
] as const;

/** Where the bundles were written. */
export interface BuiltMain {
  mainFile: string;
  preloadFile: string;
  cliFile: string;
}

/**
 * The packages the main process and worker bundles import at run time (those esbuild
 * left out of them), from esbuild's metafile; the packaging test checks each is packaged.
 * Beside out/main, not in it, so it is never packaged itself.
 */
export const MAIN_EXTERNALS_FILE = 'out/main-externals.json';

/**
 * esbuild's metafiles of the main process and worker builds (which output holds which source,
 * and how the outputs import each other), for the packaging tests. Beside out/main, not packaged.
 */
export const MAIN_METAFILE = 'out/main-meta.json';

/**
 * Where the .deb installs the app: electron-builder's `/opt/${sanitizedProductName}` (FpmTarget),
 * from electron-builder.yml's productName; a packaging test checks the two agree.
 */
export const DEB_INSTALL_DIR = '/opt/Herald';

/**
 * The command-line launcher the .deb installs as /usr/bin/herald (electron-builder.yml's
 * `deb.fpm`): `herald send` with the user's Node, the desktop app being `herald-desktop`.
 * Relative to the project root, where electron-builder runs.
 */
export const DEB_CLI_LAUNCHER = 'out/cli/herald';

/** The desktop app's `herald send`, relative to the project root (electron-builder.yml's extraResources). */
export const DESKTOP_CLI = 'out/cli/herald.mjs';

/**
 * buildMain() writes out/main and out/preload from scratch (stale files from an older build
 * would otherwise be packaged).
 */
export async function buildMain(options: { minify?: boolean } = {}): Promise<BuiltMain> {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  const outMain = path.join(root, 'out', 'main');
  const outPreload = path.join(root, 'out', 'preload');
  const cliFile = path.join(root, DESKTOP_CLI);
  rmSync(outMain, { recursive: true, force: true });
  rmSync(outPreload, { recursive: true, force: true });
  rmSync(path.dirname(cliFile), { recursive: true, force: true });

  // The desktop app always runs as production: the bundled packages (Express above all) and
  // Herald's own code see NODE_ENV folded in at build time, main/index.ts sets it for the
  // packages kept external. The worker threads are bundles of their own and get it too.
  const define = {
    __HERALD_VERSION__: JSON.stringify(pkg.version),
    'process.env.NODE_ENV': JSON.stringify('production'),
  };
  const mainFile = path.join(outMain, 'index.js');
  const preloadFile = path.join(outPreload, 'index.cjs');
  const main = await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, 'main', 'index.ts')],
    outdir: outMain,
    // main/index.ts imports the server dynamically, so the server and the native modules it
    // imports go to a chunk of their own, loaded inside the start-up's try (a native module that
    // fails to load then gets Herald's start-failure dialog). The chunks stay beside index.js:
    // server/lib/worker-file.ts finds the worker files beside the chunk that holds it.
    splitting: true,
    entryNames: '[name]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Electron 38 embeds Node 22.
    target: 'node22',
    // npm packages are bundled in, as in the server's bundle (issue 26): the package then
    // holds only the modules the bundle leaves out (BUNDLE_EXTERNALS: electron, the native
    // modules, the database drivers Sequelize loads by name), and the main process reads one
    // file at start instead of hundreds. scripts/dist.ts stages exactly those.
    external: [...BUNDLE_EXTERNALS],
    banner: esmRequireBanner,
    plugins: bundlePlugins,
    sourcemap: true,
    metafile: true,
    minify: options.minify ?? false,
    define,
    logLevel: 'warning',
  });
  // Each worker in one file of its own (no shared chunks beside the main bundle).
  const workers = await build({
    absWorkingDir: root,
    entryPoints: workerEntryPoints(),
    outdir: outMain,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: [...BUNDLE_EXTERNALS],
    banner: esmRequireBanner,
    plugins: bundlePlugins,
    sourcemap: true,
    metafile: true,
    minify: options.minify ?? false,
    define,
    logLevel: 'warning',
  });
  const externals = new Set<string>();
  for (const output of [
    ...Object.values(main.metafile.outputs),
    ...Object.values(workers.metafile.outputs),
  ]) {
    for (const imported of output.imports) {
      if (!imported.external || imported.path.startsWith('node:')) continue;
      const parts = imported.path.split('/');
      const name = imported.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      if (!builtinModules.includes(name)) externals.add(name);
    }
  }
  // Packages loaded through createRequire on first use (server/db/better-sqlite3.ts), which no
  // import statement and so no metafile entry shows: found by name in the bundles' text.
  for (const file of Object.keys({ ...main.metafile.outputs, ...workers.metafile.outputs })) {
    if (!file.endsWith('.js')) continue;
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const [, name] of text.matchAll(/\b(?:require|__require|nodeRequire)\("([^"]+)"\)/g)) {
      if (BUNDLE_EXTERNALS.includes(name!)) externals.add(name!);
    }
  }
  writeFileSync(path.join(root, MAIN_EXTERNALS_FILE), `${JSON.stringify([...externals].sort())}\n`);
  writeFileSync(
    path.join(root, MAIN_METAFILE),
    `${JSON.stringify({ main: main.metafile, workers: workers.metafile })}\n`,
  );
  await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, 'main', 'preload', 'index.ts')],
    outfile: preloadFile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'es2022',
    // The sandboxed preload can require only `electron` and a few polyfills, so everything else
    // it uses is bundled in.
    external: ['electron'],
    sourcemap: 'inline',
    minify: options.minify ?? false,
    logLevel: 'warning',
  });

  await build({
    absWorkingDir: root,
    entryPoints: [path.join(root, 'cli', 'desktop.ts')],
    outfile: cliFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Run by the user's own `node`, not Electron's (the packaged app's runAsNode fuse is off):
    // Herald's floor, Node 20.
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    minify: options.minify ?? false,
    logLevel: 'warning',
  });

  // fpm copies a file with its mode: the launcher is executable here already.
  const launcher = path.join(root, DEB_CLI_LAUNCHER);
  writeFileSync(
    launcher,
    launcherText('linux', `${DEB_INSTALL_DIR}/resources/cli/herald.mjs`, 'deb'),
    { mode: 0o755 },
  );
  chmodSync(launcher, 0o755);

  const assets = path.join(outMain, 'assets');
  mkdirSync(assets, { recursive: true });
  for (const file of RUNTIME_ASSETS) {
    copyFileSync(path.join(root, 'build', file), path.join(assets, file));
  }
  return { mainFile, preloadFile, cliFile };
}

const isMain =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  buildMain({ minify: process.argv.includes('--minify') }).then(
    (built) => {
      console.log(
        `built ${path.relative(root, built.mainFile)} and ${path.relative(root, built.preloadFile)}`,
      );
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
