/**
 * `npm run dist` (after `npm run build`): packages the desktop app without touching the
 * project's own node_modules and without needing a C++ toolchain.
 *
 *   1. stageApp() writes the packaging copy, out/app/ (electron-builder.yml's
 *      `directories.app`): a package.json of its own (name, version, `main`, `type` and the
 *      production dependencies), the built out/main, out/preload and renderer/dist, and a
 *      node_modules holding only the production dependency closure, copied (never linked) from
 *      the project's node_modules. `electron` is never part of it.
 *   2. @electron/rebuild rebuilds the one production dependency that is not Node-API,
 *      better-sqlite3, for the packaged Electron, in the copy only. It installs the Electron
 *      prebuild better-sqlite3 publishes (prebuild-install) and compiles only when none exists.
 *      sqlite3 and argon2 are Node-API: the binaries npm installed load in Electron as they are.
 *   3. electron-builder packages out/app with `npmRebuild: false`, so it never rebuilds
 *      anything itself (its default rebuild ran inside the project and left better-sqlite3
 *      built for Electron there, which headless runs and tests then could not load).
 *
 * Arguments go to electron-builder: `npm run dist -- --linux deb`. Each run builds for this
 * computer's OS and architecture, the only ones the binaries in node_modules are for.
 */
import { spawn } from 'node:child_process';
import {
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { RebuildOptions } from '@electron/rebuild';

import { BUNDLE_EXTERNALS, WORKER_ENTRIES } from './build-server.mjs';

/** The packaging copy, relative to the project root; electron-builder.yml's `directories.app`. */
export const STAGING_DIR = 'out/app';

/** The packaged app's entry point, relative to the app folder. */
export const APP_MAIN = 'out/main/index.js';

/** Build outputs the packaged app is made of (folders, relative to the project root). */
export const APP_FOLDERS = ['out/main', 'out/preload', 'renderer/dist'];

/** The worker threads' bundles beside the main process's (scripts/build-main.ts). */
export const MAIN_WORKER_FILES = Object.keys(WORKER_ENTRIES).map((name) => `out/main/${name}.js`);

/** Files that must exist before staging: each comes from `npm run build`. */
const REQUIRED_BUILD_FILES = [
  APP_MAIN,
  ...MAIN_WORKER_FILES,
  'out/preload/index.cjs',
  'renderer/dist/index.html',
  // Not in the app folder: electron-builder.yml's extraResources copies it from the project.
  'out/cli/herald.mjs',
  // Nor this: the .deb's /usr/bin/herald (deb.fpm).
  'out/cli/herald',
];

/**
 * Production dependencies built for one runtime's ABI (not Node-API): the copy npm installed is
 * for Node, so the packaging copy gets Electron's. sqlite3 and argon2 are Node-API.
 */
export const ELECTRON_REBUILD_MODULES = ['better-sqlite3'];

interface PackageJson {
  name: string;
  version: string;
  description?: string;
  license?: string;
  author?: unknown;
  homepage?: string;
  repository?: unknown;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** The package.json written into the packaging copy: the project's identity, its own entry. */
export interface StagedPackageJson extends Omit<
  PackageJson,
  'dependencies' | 'optionalDependencies'
> {
  private: true;
  type: 'module';
  main: string;
  dependencies: Record<string, string>;
}

/** One installed package of the production closure. */
export interface ProductionModule {
  name: string;
  /** Where it sits, relative to the project root: `node_modules/a/node_modules/b`. */
  location: string;
}

export interface StagedApp {
  /** Absolute path of the packaging copy. */
  dir: string;
  packageJson: StagedPackageJson;
  modules: ProductionModule[];
}

function readPackageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson;
}

/** Node's lookup of `name` from `fromDir`, limited to node_modules folders inside `root`. */
function findInstalled(root: string, fromDir: string, name: string): string | null {
  let dir = fromDir;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === root) return null;
    dir = path.dirname(dir);
    // From node_modules/@scope/pkg the next look-up is in the package holding that node_modules.
    while (
      dir !== root &&
      (path.basename(dir) === 'node_modules' || path.basename(dir).startsWith('@'))
    ) {
      dir = path.dirname(dir);
    }
  }
}

/**
 * The dependencies the package ships as modules: those the main process bundle leaves out
 * (BUNDLE_EXTERNALS: the native modules and the database drivers Sequelize loads by name).
 * Everything else is bundled into out/main/index.js (scripts/build-main.ts).
 */
export function packagedDependencies(all: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(all).filter(([name]) => BUNDLE_EXTERNALS.includes(name)),
  );
}

/**
 * The production dependency closure: what the project's `dependencies` load, following each
 * package's `dependencies` and (installed) `optionalDependencies`, resolved the way Node does
 * from where each package sits. Matches `npm ls --omit=dev --all` without the project's own
 * optionalDependencies (electron). Peer dependencies are not followed: electron-builder ships
 * only dependencies and optionalDependencies (npm ls's `_dependencies`).
 */
export function productionModules(
  root: string,
  dependencies: readonly string[] = Object.keys(readPackageJson(root).dependencies ?? {}),
): ProductionModule[] {
  const rootPkg = readPackageJson(root);
  const found = new Map<string, ProductionModule>();
  const queue: { from: string; name: string; optional: boolean; by: string }[] = dependencies.map(
    (name) => ({ from: root, name, optional: false, by: rootPkg.name }),
  );
  while (queue.length > 0) {
    const { from, name, optional, by } = queue.shift()!;
    const dir = findInstalled(root, from, name);
    if (dir === null) {
      if (optional) continue;
      throw new Error(`${name} (a dependency of ${by}) is not installed: run \`npm ci\` first`);
    }
    const location = path.relative(root, dir).split(path.sep).join('/');
    if (found.has(location)) continue;
    if (name === 'electron') {
      throw new Error(`${by} depends on electron, which must not be packaged as a module`);
    }
    found.set(location, { name, location });
    const pkg = readPackageJson(dir);
    for (const dep of Object.keys(pkg.dependencies ?? {})) {
      queue.push({ from: dir, name: dep, optional: false, by: name });
    }
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) {
      queue.push({ from: dir, name: dep, optional: true, by: name });
    }
  }
  return [...found.values()].sort((a, b) => a.location.localeCompare(b.location));
}

/**
 * Copies `from` to `to`. Real copies (copy-on-write clones where the file system has them),
 * never hard links: the rebuild rewrites better-sqlite3's binary in place, which through a
 * hard link would rewrite the project's own.
 */
function copyTree(from: string, to: string, skip?: (source: string) => boolean): void {
  cpSync(from, to, {
    recursive: true,
    mode: constants.COPYFILE_FICLONE,
    filter: skip ? (source) => !skip(source) : undefined,
  });
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Writes the packaging copy into `stagingDir` (emptied first) from the project at `root`.
 * Reads the project's node_modules and build outputs; writes nowhere else.
 */
export function stageApp(options: { root: string; stagingDir: string }): StagedApp {
  const root = path.resolve(options.root);
  const dir = path.resolve(options.stagingDir);
  if (isInside(dir, root) || isInside(path.join(root, 'node_modules'), dir)) {
    throw new Error(`refusing to stage into ${dir}: it holds the project or its node_modules`);
  }
  const missing = REQUIRED_BUILD_FILES.filter((file) => !existsSync(path.join(root, file)));
  if (missing.length > 0) {
    throw new Error(`missing ${missing.join(', ')}: run \`npm run build\` first`);
  }

  const rootPkg = readPackageJson(root);
  const dependencies = packagedDependencies(rootPkg.dependencies ?? {});
  const modules = productionModules(root, Object.keys(dependencies));

  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const folder of APP_FOLDERS) copyTree(path.join(root, folder), path.join(dir, folder));

  const packageJson: StagedPackageJson = {
    name: rootPkg.name,
    version: rootPkg.version,
    ...(rootPkg.description !== undefined && { description: rootPkg.description }),
    ...(rootPkg.license !== undefined && { license: rootPkg.license }),
    ...(rootPkg.author !== undefined && { author: rootPkg.author }),
    ...(rootPkg.homepage !== undefined && { homepage: rootPkg.homepage }),
    ...(rootPkg.repository !== undefined && { repository: rootPkg.repository }),
    private: true,
    // out/main/index.js is an ES module.
    type: 'module',
    main: APP_MAIN,
    dependencies,
  };
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`);

  // Each package is copied without its own node_modules: the nested packages the closure needs
  // are copied to the same place in turn, so the layout (and Node's resolution) is the project's.
  for (const mod of modules) {
    const source = path.join(root, mod.location);
    const nested = path.join(source, 'node_modules');
    copyTree(source, path.join(dir, mod.location), (file) => file === nested);
  }
  return { dir, packageJson, modules };
}

/**
 * The Electron version to package: the installed electron package's, else the lock file's.
 * electron is an optionalDependency with a range, which electron-builder cannot turn into a
 * version when electron is not installed (it reads only dependencies/devDependencies), so dist
 * passes this to it explicitly.
 */
export function electronVersion(root: string): string {
  const installed = path.join(root, 'node_modules', 'electron', 'package.json');
  let version: string | undefined;
  if (existsSync(installed)) {
    version = (JSON.parse(readFileSync(installed, 'utf8')) as { version?: string }).version;
  } else {
    const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages?: Record<string, { version?: string }>;
    };
    version = lock.packages?.['node_modules/electron']?.version;
  }
  if (version === undefined || !/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(version)) {
    throw new Error(
      'cannot tell the Electron version: electron is in neither node_modules nor the lock file',
    );
  }
  return version;
}

/** What a dist run builds for: this computer's OS and architecture. */
export interface DistTarget {
  platform: NodeJS.Platform;
  arch: string;
}

const PLATFORM_FLAGS: Record<string, NodeJS.Platform> = {
  '--mac': 'darwin',
  '--macos': 'darwin',
  '--linux': 'linux',
  '--win': 'win32',
  '--windows': 'win32',
};
const PLATFORM_LETTERS: Record<string, NodeJS.Platform> = {
  m: 'darwin',
  o: 'darwin',
  l: 'linux',
  w: 'win32',
};
const ARCHES = ['x64', 'ia32', 'armv7l', 'arm64', 'universal'];

/**
 * The target the electron-builder arguments ask for, which must be this computer's: the
 * packaging copy holds one set of native binaries, those of this OS and architecture (sqlite3's
 * Node-API binary comes from `npm ci` here, better-sqlite3's is fetched for this arch).
 */
export function distTarget(
  args: string[],
  host: DistTarget = { platform: process.platform, arch: process.arch },
): DistTarget {
  const platforms = new Set<NodeJS.Platform>();
  const arches = new Set<string>();
  for (const arg of args) {
    if (arg in PLATFORM_FLAGS) platforms.add(PLATFORM_FLAGS[arg]);
    else if (/^-[a-zA-Z]+$/.test(arg)) {
      for (const letter of arg.slice(1)) {
        if (letter in PLATFORM_LETTERS) platforms.add(PLATFORM_LETTERS[letter]);
      }
    } else if (arg.startsWith('--') && ARCHES.includes(arg.slice(2))) arches.add(arg.slice(2));
    else if (!arg.startsWith('-')) {
      // Target specs such as `deb:arm64`.
      const arch = /:([a-z0-9]+)$/.exec(arg)?.[1];
      if (arch !== undefined && ARCHES.includes(arch)) arches.add(arch);
    }
  }
  const otherPlatform = [...platforms].find((p) => p !== host.platform);
  if (otherPlatform !== undefined) {
    throw new Error(
      `npm run dist builds for this computer's OS (${host.platform}) only, not ${otherPlatform}: ` +
        'the native modules in node_modules are built for this OS. Build on the target OS.',
    );
  }
  const otherArch = [...arches].find((a) => a !== host.arch);
  if (otherArch !== undefined) {
    throw new Error(
      `npm run dist builds for this computer's architecture (${host.arch}) only, not ${otherArch}: ` +
        'the native modules in node_modules are built for it. Build on a machine of the target architecture.',
    );
  }
  return { ...host };
}

/** The two steps that need the internet, replaceable for tests. */
export interface DistSteps {
  /** @electron/rebuild's rebuild(). */
  rebuild(options: RebuildOptions): Promise<void>;
  /** Runs the electron-builder command line with these arguments in `cwd`. */
  electronBuilder(args: string[], options: { cwd: string }): Promise<void>;
}

const defaultSteps: DistSteps = {
  async rebuild(options) {
    const { rebuild } = await import('@electron/rebuild');
    await rebuild(options);
  },
  electronBuilder(args, options) {
    const cli = createRequire(import.meta.url).resolve('electron-builder/cli.js');
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli, ...args], { cwd: options.cwd, stdio: 'inherit' });
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        if (code === 0) resolve();
        else reject(new Error(`electron-builder failed (${signal ?? `exit code ${code}`})`));
      });
    });
  },
};

/**
 * What dist asks of @electron/rebuild: better-sqlite3 only, in the packaging copy only, for the
 * packaged Electron. It installs the module's Electron prebuild when one is published and
 * compiles it (node-gyp) only when none is.
 */
export function rebuildOptions(
  stagedDir: string,
  version: string,
  target: DistTarget,
): RebuildOptions {
  return {
    buildPath: stagedDir,
    // Bounds @electron/rebuild's node_modules search to the copy (it otherwise walks up through
    // parent folders that hold a package.json).
    projectRootPath: stagedDir,
    electronVersion: version,
    platform: target.platform,
    arch: target.arch,
    onlyModules: [...ELECTRON_REBUILD_MODULES],
    // The copy holds the binary npm built for Node: always replace it.
    force: true,
    // better-sqlite3 loads build/Release/*.node (bindings); no second copy under bin/.
    disablePreGypCopy: true,
  };
}

/** @electron/rebuild's marker of a module it built or installed: `<arch>--<ABI>`. */
function rebuildMarker(moduleDir: string): string {
  return path.join(moduleDir, 'build', 'Release', '.forge-meta');
}

/**
 * The ABI a native addon was compiled for, from the `node_register_module_v<ABI>` symbol that
 * NODE_MODULE_INIT exports (null for Node-API addons and other files).
 */
export function addonAbi(file: string): string | null {
  return /node_register_module_v(\d+)/.exec(readFileSync(file).toString('latin1'))?.[1] ?? null;
}

/**
 * Checks that @electron/rebuild built `name` in the copy for the Electron ABI it was asked for:
 * its marker names that ABI and the addon's own symbol says so too. node-gyp compiles against
 * the headers `nodedir` points to when that npm setting (npm_config_nodedir) is set, which
 * gives Node's ABI under an Electron marker.
 */
export function checkElectronBuild(stagedDir: string, name: string): string {
  const moduleDir = path.join(stagedDir, 'node_modules', name);
  const release = path.join(moduleDir, 'build', 'Release');
  const marker = rebuildMarker(moduleDir);
  const built = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : '';
  const abi = /--(\d+)$/.exec(built)?.[1];
  if (abi === undefined) throw new Error(`@electron/rebuild did not build ${name} for Electron`);
  const addons = readdirSync(release)
    .filter((file) => file.endsWith('.node'))
    .map((file) => ({ file, abi: addonAbi(path.join(release, file)) }))
    .filter((addon) => addon.abi !== null);
  const wrong = addons.filter((addon) => addon.abi !== abi);
  if (addons.length === 0 || wrong.length > 0) {
    const found = addons.map((addon) => `${addon.file}: ABI ${addon.abi}`).join(', ') || 'none';
    throw new Error(
      `${name} in the packaging copy is not built for Electron's ABI ${abi} (${found}). ` +
        "Is npm_config_nodedir (npm's nodedir setting) pointing node-gyp at Node's headers?",
    );
  }
  return built;
}

/** The variables that name a Developer ID certificate for electron-builder's macOS signing. */
export const MAC_SIGNING_VARIABLES = ['CSC_LINK', 'CSC_NAME'] as const;

/**
 * Notarization's variables, by the set electron-builder 26 reads (app-builder-lib
 * MacTargetHelper getNotarizeOptions): an Apple ID, an App Store Connect API key, or a keychain
 * profile.
 */
export const NOTARIZE_VARIABLE_SETS = [
  ['APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID'],
  ['APPLE_API_KEY', 'APPLE_API_KEY_ID', 'APPLE_API_ISSUER'],
  ['APPLE_KEYCHAIN_PROFILE'],
] as const;

/**
 * How the macOS app is signed, as electron-builder arguments and a line for the log:
 * - with CSC_LINK or CSC_NAME, electron-builder signs with that Developer ID and notarizes
 *   when a whole set of APPLE_* variables is there (nothing to add);
 * - without, ad hoc (`identity: "-"`): electron-builder 26 skips signing when no identity is
 *   found, and Apple Silicon refuses an unsigned app as "damaged" with no way to open it.
 *   Notarization is turned off then: Apple refuses to notarize an ad-hoc signature.
 */
export function macSigning(env: Record<string, string | undefined>): {
  args: string[];
  note: string;
} {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if (MAC_SIGNING_VARIABLES.some(set)) {
    const notarized = NOTARIZE_VARIABLE_SETS.some((names) => names.every(set));
    return {
      args: [],
      note: notarized
        ? 'dist: macOS: signed with the Developer ID in CSC_LINK/CSC_NAME, then notarized'
        : 'dist: macOS: signed with the Developer ID in CSC_LINK/CSC_NAME, not notarized (no APPLE_* set): ' +
          'users open it the first time with System Settings → Privacy & Security → Open Anyway',
    };
  }
  return {
    args: ['--config.mac.identity=-', '--config.mac.notarize=false'],
    note:
      'dist: macOS: signed ad hoc (no CSC_LINK or CSC_NAME): it opens on Apple Silicon once the ' +
      'user allows it (docs/desktop.md, First launch)',
  };
}

/**
 * electronBuilderArgs() is electron-builder's command line for a dist run: the user's arguments,
 * then the packaging copy as the app folder and the Electron version (electron-builder reads
 * electron-builder.yml from the project root and packages that very folder; see
 * electronVersion() for the version), and on macOS how to sign (macSigning).
 */
export function electronBuilderArgs(input: {
  args: string[];
  stagedDir: string;
  version: string;
  target: DistTarget;
  env: Record<string, string | undefined>;
}): { args: string[]; note: string | null } {
  const mac = input.target.platform === 'darwin' ? macSigning(input.env) : null;
  return {
    args: [
      ...input.args,
      `--config.directories.app=${input.stagedDir}`,
      `--config.electronVersion=${input.version}`,
      ...(mac?.args ?? []),
    ],
    note: mac?.note ?? null,
  };
}

/**
 * The whole of `npm run dist` after the build: stage, rebuild better-sqlite3 in the copy, run
 * electron-builder on the copy. `args` go to electron-builder.
 */
export async function dist(options: {
  root: string;
  args: string[];
  /** Where to stage; STAGING_DIR in the project unless a test says otherwise. */
  stagingDir?: string;
  steps?: Partial<DistSteps>;
  log?: (line: string) => void;
  /** Where the signing variables are read; the process's environment by default. */
  env?: Record<string, string | undefined>;
}): Promise<StagedApp> {
  const root = path.resolve(options.root);
  const steps: DistSteps = { ...defaultSteps, ...options.steps };
  const log = options.log ?? ((line: string) => console.log(line));

  const target = distTarget(options.args);
  const version = electronVersion(root);
  log(`dist: Electron ${version}, ${target.platform}-${target.arch}`);

  const staged = stageApp({
    root,
    stagingDir: options.stagingDir ?? path.join(root, STAGING_DIR),
  });
  log(
    `dist: staged ${path.relative(root, staged.dir)} (${staged.modules.length} production modules)`,
  );

  for (const name of ELECTRON_REBUILD_MODULES) {
    const moduleDir = path.join(staged.dir, 'node_modules', name);
    if (!existsSync(moduleDir)) throw new Error(`${name} is not among the production modules`);
    // A copy of a project that was once rebuilt for Electron carries the marker already.
    rmSync(rebuildMarker(moduleDir), { force: true });
  }
  await steps.rebuild(rebuildOptions(staged.dir, version, target));
  for (const name of ELECTRON_REBUILD_MODULES) {
    log(`dist: ${name} built for Electron ${version} (${checkElectronBuild(staged.dir, name)})`);
  }

  const builder = electronBuilderArgs({
    args: options.args,
    stagedDir: staged.dir,
    version,
    target,
    env: options.env ?? process.env,
  });
  if (builder.note) log(builder.note);
  await steps.electronBuilder(builder.args, { cwd: root });
  return staged;
}

const isMain =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  dist({ root, args: process.argv.slice(2) }).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
