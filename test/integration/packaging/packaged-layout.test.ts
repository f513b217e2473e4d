/**
 * The packaged app's layout, checked without Electron and without the internet.
 *
 * scripts/dist.ts stages the packaging copy (out/app in a real run; a temporary folder here).
 * The files electron-builder.yml's `files` select from it are packed with @electron/asar,
 * `.node` files unpacked where its `asarUnpack` says (electron-builder's own pattern rules,
 * app-builder-lib's fileMatcher.js and util/filter.js), and the archive is read back: every path
 * main/ resolves at run time, every package the bundles import, every native binary beside the
 * archive, and nothing that must not ship. On Linux the same checks run on the app.asar the real
 * electron-builder writes from the staged folder, with a stand-in for the Electron runtime.
 *
 * dist's two online steps (@electron/rebuild, electron-builder) are replaced to check that they
 * work on the packaging copy only, and the project's own better-sqlite3 binary is compared
 * before and after.
 *
 * Packaging touches no database, so the PostgreSQL pass of test/integration skips this file.
 */
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  chmodSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

import {
  createPackageFromStreams,
  extractFile,
  listPackage,
  statFile,
  uncacheAll,
  type AsarStreamType,
} from '@electron/asar';
import type { RebuildOptions } from '@electron/rebuild';
import { Rebuilder } from '@electron/rebuild/lib/rebuild';
import { load } from 'js-yaml';
import { Minimatch } from 'minimatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureMainBundle, walk } from '../../helpers/main-bundle';

import { appFilesUsed } from '../../../main/app-files';
import { MAIN_EXTERNALS_FILE, MAIN_METAFILE, RUNTIME_ASSETS } from '../../../scripts/build-main';
import { WORKER_VARIABLES } from '../../../server/lib/worker-file';
import {
  addonAbi,
  APP_MAIN,
  dist,
  type DistSteps,
  distTarget,
  ELECTRON_REBUILD_MODULES,
  electronVersion,
  packagedDependencies,
  rebuildOptions,
  stageApp,
  STAGING_DIR,
  type StagedApp,
} from '../../../scripts/dist';
import { onPostgres } from '../../helpers/test-database';

const root = path.resolve(import.meta.dirname, '../../..');

/** The part of @electron/rebuild's (internal) ModuleWalker that Rebuilder.rebuild() uses. */
interface ModuleWalker {
  walkModules(): Promise<void>;
  nodeModulesPaths: Promise<string[]>;
  findAllModulesIn(nodeModulesPath: string): Promise<void>;
  modulesToRebuild: string[];
}

interface BuilderConfig {
  directories?: { app?: string };
  npmRebuild?: boolean;
  asar?: boolean;
  files?: string[];
  asarUnpack?: string[] | string;
  extraMetadata?: Record<string, unknown>;
}

const config = load(readFileSync(path.join(root, 'electron-builder.yml'), 'utf8')) as BuilderConfig;

/**
 * Every file main/ opens relative to out/main at run time, from main/app-files.ts itself (boot
 * takes its paths from there), for every packaged platform, as paths inside the app folder.
 */
function mainRuntimeFiles(): string[] {
  const mainDir = path.posix.dirname(APP_MAIN);
  return appFilesUsed(path.join(path.sep, mainDir)).map((file) =>
    path.relative(path.sep, file).split(path.sep).join('/'),
  );
}

/**
 * The worker files server/lib/worker-file.ts looks for beside the output file that holds it, as
 * paths inside the app folder: esbuild's metafile (scripts/build-main.ts) says which outputs
 * hold that module, and WORKER_VARIABLES names every worker.
 */
function workerRuntimeFiles(): string[] {
  const meta = JSON.parse(readFileSync(path.join(root, MAIN_METAFILE), 'utf8')) as {
    main: { outputs: Record<string, { inputs: Record<string, unknown> }> };
  };
  const holders = Object.entries(meta.main.outputs)
    .filter(([, output]) => 'server/lib/worker-file.ts' in output.inputs)
    .map(([file]) => path.posix.dirname(file));
  expect(holders.length, 'outputs holding server/lib/worker-file.ts').toBeGreaterThan(0);
  return [...new Set(holders)].flatMap((dir) =>
    Object.keys(WORKER_VARIABLES).map((name) => path.posix.join(dir, `${name}.js`)),
  );
}

// --- electron-builder's pattern rules (app-builder-lib 26, fileMatcher.js and util/filter.js) ---

function hasMagic(pattern: Minimatch): boolean {
  return pattern.set.length > 1 || pattern.set[0].some((part) => typeof part !== 'string');
}

/** FileMatcher.computeParsedPatterns: a folder pattern (no dot, no magic) also matches its content. */
function parsePatterns(patterns: string[]): Minimatch[] {
  const parsed: Minimatch[] = [];
  for (const raw of patterns) {
    const pattern = path.posix.normalize(raw.startsWith('./') ? raw.slice(2) : raw);
    const matcher = new Minimatch(pattern, { dot: true });
    parsed.push(matcher);
    if (!pattern.includes('.') && !hasMagic(matcher)) {
      parsed.push(new Minimatch(`${pattern}/**/*`, { dot: true }));
    }
  }
  return parsed;
}

/** filter.js minimatchAll: in order, a match is re-tested by exclusions only, a miss by inclusions. */
function matchesAll(relative: string, patterns: Minimatch[]): boolean {
  let match = false;
  for (const pattern of patterns) {
    if (match !== pattern.negate) continue;
    match = pattern.match(relative);
  }
  return match;
}

function asArray(value: string[] | string | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * The files electron-builder puts in the app from `appDir`: the app's own files through `files`
 * (with package.json always added, node_modules left to the dependency collector), and the
 * production node_modules through `files`' exclusions only (getNodeModuleFileMatcher).
 */
function selectFiles(appDir: string, builder: BuilderConfig): string[] {
  const files = asArray(builder.files);
  const own = parsePatterns([
    '!**/node_modules/**',
    ...files,
    ...(files.includes('package.json') ? [] : ['package.json']),
  ]);
  const exclusions = files.filter((pattern) => pattern.startsWith('!'));
  const modules = parsePatterns(exclusions.length > 0 ? ['**/*', ...exclusions] : ['**/*']);
  return walk(appDir).filter((file) =>
    file.startsWith('node_modules/') ? matchesAll(file, modules) : matchesAll(file, own),
  );
}

function deepAssign(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    if (
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      current !== null &&
      typeof current === 'object' &&
      !Array.isArray(current)
    ) {
      deepAssign(current as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      target[key] = value;
    }
  }
}

/**
 * Packs what `builder` selects from `appDir` into `archive` the way electron-builder does
 * (asarUtil.js: createPackageFromStreams, each entry unpacked when `asarUnpack` matches it),
 * with `extraMetadata` merged into package.json.
 */
async function packLikeElectronBuilder(
  appDir: string,
  archive: string,
  builder: BuilderConfig,
): Promise<void> {
  const unpack = parsePatterns(asArray(builder.asarUnpack));
  const streams: AsarStreamType[] = [];
  for (const file of selectFiles(appDir, builder)) {
    const source = path.join(appDir, file);
    const stat = statSync(source);
    let streamGenerator = (): NodeJS.ReadableStream => createReadStream(source);
    if (file === 'package.json') {
      const pkg = JSON.parse(readFileSync(source, 'utf8')) as Record<string, unknown>;
      deepAssign(pkg, builder.extraMetadata ?? {});
      const text = JSON.stringify(pkg, null, 2);
      streamGenerator = () => Readable.from([Buffer.from(text)]);
      Object.defineProperty(stat, 'size', { value: Buffer.byteLength(text) });
    }
    streams.push({
      type: 'file',
      path: file,
      stat,
      unpacked: unpack.length > 0 && matchesAll(file, unpack),
      streamGenerator,
    });
  }
  await createPackageFromStreams(archive, streams);
  const packedBytes = streams
    .filter((entry) => entry.type === 'file' && !entry.unpacked)
    .reduce((sum, entry) => sum + (entry.type === 'file' ? entry.stat.size : 0), 0);
  await archiveWritten(archive, packedBytes);
}

/**
 * @electron/asar resolves createPackageFromStreams once it has called end() on the archive's
 * stream, not once the bytes are on disk; reading at once sometimes met NUL bytes where a
 * file's data was still to come. Waits until the archive holds its header and every packed
 * byte: 8 bytes giving the header's size, the header, then the files' data.
 */
async function archiveWritten(archive: string, packedBytes: number): Promise<void> {
  const expected = () => {
    if (!existsSync(archive) || statSync(archive).size < 8) return Infinity;
    const sizeBuf = readFileSync(archive).subarray(0, 8);
    return 8 + sizeBuf.readUInt32LE(4) + packedBytes;
  };
  for (let i = 0; i < 200; i++) {
    if (statSync(archive).size >= expected()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${archive} was not written in full within 10 s`);
}

// --- reading the archive back ---

/** Entries of the archive, as posix paths without the leading slash. */
function entries(archive: string): string[] {
  return listPackage(archive, { isPack: false }).map((entry) =>
    entry.split(path.sep).join('/').replace(/^\//, ''),
  );
}

function isFileIn(archive: string, file: string): boolean {
  try {
    return !('files' in statFile(archive, file));
  } catch {
    return false;
  }
}

/** Runtime .node files of the production dependencies (not node-gyp's intermediate copies). */
function nativeBinaries(appDir: string): string[] {
  return walk(path.join(appDir, 'node_modules'))
    .filter((file) => file.endsWith('.node') && !/\/(?:obj\.target|\.deps)\//.test(file))
    .map((file) => `node_modules/${file}`);
}

/** Every check on a packed app.asar (beside it: app.asar.unpacked) made from `staged`. */
function checkArchive(archive: string, staged: StagedApp): void {
  const listed = entries(archive);
  const pkg = JSON.parse(extractFile(archive, 'package.json').toString('utf8')) as {
    main?: string;
    type?: string;
  };

  // The entry point electron starts, as an ES module.
  expect(pkg.main).toBe(APP_MAIN);
  expect(pkg.type).toBe('module');
  expect(isFileIn(archive, APP_MAIN)).toBe(true);

  // Everything main/ and the server it starts open from the app folder at run time, and every
  // asset the build copies (the tray's @2x twins, which nativeImage picks by itself).
  const runtime = [
    ...mainRuntimeFiles(),
    ...workerRuntimeFiles(),
    ...RUNTIME_ASSETS.map((asset) => `out/main/assets/${asset}`),
  ];
  const missing = runtime.filter((file) => !isFileIn(archive, file));
  expect(missing, 'runtime files missing from app.asar').toEqual([]);

  // Every package the bundles import at run time (those esbuild left out of them, from its
  // metafile) is in node_modules; the natives are among them.
  const imported = JSON.parse(
    readFileSync(path.join(root, MAIN_EXTERNALS_FILE), 'utf8'),
  ) as string[];
  expect(imported).toEqual(expect.arrayContaining(['better-sqlite3', 'sqlite3', 'argon2', 'pg']));
  // Each is also what the packaged server chunk's text imports, so the list is of this build.
  const serverChunk = /import\("\.\/(server-[^"]+\.js)"\)/.exec(
    extractFile(archive, APP_MAIN).toString('utf8'),
  )?.[1];
  expect(serverChunk, 'the server chunk main/index.ts imports').toBeDefined();
  const text = extractFile(archive, `out/main/${serverChunk}`).toString('utf8');
  // argon2 and sqlite3 by an import statement; better-sqlite3 on first use
  // (server/db/better-sqlite3.ts), so that a binary that cannot load leaves node-sqlite3.
  for (const name of ['sqlite3', 'argon2']) {
    expect(text).toMatch(new RegExp(`^import \\w+ from "${name}";$`, 'm'));
  }
  expect(text).toMatch(/\bnodeRequire\("better-sqlite3"\)/);
  expect(text).not.toMatch(/^import \w+ from "better-sqlite3";$/m);
  // Required lazily, inside a try, by code Herald never reaches: Sequelize's hstore type.
  const lazyOptional = new Set(['pg-hstore']);
  const unresolved = imported
    .filter((name) => name !== 'electron' && !lazyOptional.has(name))
    .filter((name) => !isFileIn(archive, `node_modules/${name}/package.json`));
  expect(unresolved, 'imported packages missing from app.asar').toEqual([]);

  // Native binaries: all of them, each unpacked beside the archive and marked so in its header.
  const binaries = nativeBinaries(staged.dir);
  expect(binaries).toEqual(
    expect.arrayContaining([
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/sqlite3/build/Release/node_sqlite3.node',
    ]),
  );
  const notUnpacked = [
    ...new Set([...binaries, ...listed.filter((entry) => entry.endsWith('.node'))]),
  ].filter((file) => {
    try {
      const entry = statFile(archive, file) as { unpacked?: boolean };
      return entry.unpacked !== true || !existsSync(path.join(`${archive}.unpacked`, file));
    } catch {
      return true;
    }
  });
  expect(notUnpacked, '.node files not unpacked beside app.asar').toEqual([]);

  // Nothing else: no Electron, no source maps, no sources, no other build output.
  expect(listed.filter((entry) => /(?:^|\/)node_modules\/electron(?:\/|$)/.test(entry))).toEqual(
    [],
  );
  expect(listed.filter((entry) => entry.endsWith('.map'))).toEqual([]);
  const topLevel = new Set(listed.map((entry) => entry.split('/')[0]));
  expect([...topLevel].sort()).toEqual(['node_modules', 'out', 'package.json', 'renderer']);
  const appFolders = new Set(
    listed
      .filter((entry) => !entry.startsWith('node_modules/') && entry.split('/').length > 2)
      .map((entry) => entry.split('/').slice(0, 2).join('/')),
  );
  expect([...appFolders].sort()).toEqual(['out/main', 'out/preload', 'renderer/dist']);
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

const temp = mkdtempSync(path.join(os.tmpdir(), 'herald-packaging-'));
let staged: StagedApp;

beforeAll(async () => {
  // What `npm run build` makes and dist packages: the main bundles and the console.
  await ensureMainBundle();
  if (!existsSync(path.join(root, 'renderer', 'dist', 'index.html'))) {
    execSync('npm run build:renderer', { cwd: root, stdio: 'inherit' });
  }
  staged = stageApp({ root, stagingDir: path.join(temp, 'app') });
}, 300_000);

afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

describe.skipIf(onPostgres())('electron-builder.yml', () => {
  it('packages the packaging copy dist stages, never rebuilding native modules itself', () => {
    expect(config.directories?.app).toBe(STAGING_DIR);
    expect(config.npmRebuild).toBe(false);
    expect(config.asar).not.toBe(false);
  });
});

describe.skipIf(onPostgres())('the packaging copy', () => {
  it('holds the app, a package.json of its own and the production modules only', () => {
    expect(readdirSync(staged.dir).sort()).toEqual([
      'node_modules',
      'out',
      'package.json',
      'renderer',
    ]);
    const pkg = JSON.parse(readFileSync(path.join(staged.dir, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const rootPkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    // Only the modules the main bundle leaves out; everything else is bundled into it.
    const shipped = packagedDependencies(rootPkg.dependencies as Record<string, string>);
    expect(Object.keys(shipped)).toEqual(
      expect.arrayContaining(['better-sqlite3', 'sqlite3', 'argon2', 'pg']),
    );
    expect(pkg).toMatchObject({
      name: rootPkg.name,
      version: rootPkg.version,
      type: 'module',
      main: APP_MAIN,
      dependencies: shipped,
    });
    expect(pkg).not.toHaveProperty('devDependencies');
    expect(pkg).not.toHaveProperty('optionalDependencies');
    expect(pkg).not.toHaveProperty('scripts');

    const names = new Set(staged.modules.map((mod) => mod.name));
    expect(names.has('electron')).toBe(false);
    expect(existsSync(path.join(staged.dir, 'node_modules', 'electron'))).toBe(false);
    // Development tools stay out.
    for (const dev of ['vitest', 'electron-builder', '@electron/rebuild', 'vite', 'typescript']) {
      expect(names.has(dev), dev).toBe(false);
    }
    for (const dependency of Object.keys(shipped)) {
      expect(existsSync(path.join(staged.dir, 'node_modules', dependency, 'package.json'))).toBe(
        true,
      );
    }
    // Bundled packages are not shipped a second time.
    for (const bundled of ['express', 'sequelize', 'zod', 'pino', 'electron-store']) {
      expect(names.has(bundled), bundled).toBe(false);
    }
  });
});

describe.skipIf(onPostgres())(
  'the files electron-builder.yml selects, packed with @electron/asar',
  () => {
    it('hold everything main/ loads, unpacked native binaries and nothing else', async () => {
      const archive = path.join(temp, 'selected', 'app.asar');
      await packLikeElectronBuilder(staged.dir, archive, config);
      checkArchive(archive, staged);
    }, 180_000);

    it('would be caught without asarUnpack, renderer/dist, a runtime asset, the preload or a worker', async () => {
      const check = async (name: string, builder: BuilderConfig) => {
        const archive = path.join(temp, name, 'app.asar');
        await packLikeElectronBuilder(staged.dir, archive, builder);
        try {
          checkArchive(archive, staged);
        } finally {
          // @electron/asar caches each archive's header by path: forget it with the archive.
          uncacheAll();
          rmSync(path.join(temp, name), { recursive: true, force: true });
        }
      };
      const files = asArray(config.files);
      // One after the other: packed at once, a check once read a file of another's still
      // being written (NUL bytes where package.json should be) and failed for that reason.
      await expect(check('no-unpack', { ...config, asarUnpack: [] })).rejects.toThrow(
        /not unpacked/,
      );
      await expect(
        check('no-renderer', {
          ...config,
          files: files.filter((pattern) => !pattern.startsWith('renderer/')),
        }),
      ).rejects.toThrow(/runtime files missing/);
      await expect(
        check('no-icon', {
          ...config,
          files: [...files, `!out/main/assets/${RUNTIME_ASSETS[0]}`],
        }),
      ).rejects.toThrow(/runtime files missing/);
      await expect(
        check('no-preload', { ...config, files: [...files, '!out/preload/**'] }),
      ).rejects.toThrow(/runtime files missing/);
      await expect(
        check('no-worker', { ...config, files: [...files, '!out/main/delivery-worker.js'] }),
      ).rejects.toThrow(/runtime files missing/);
    }, 300_000);
  },
);

describe.skipIf(process.platform !== 'linux' || onPostgres())(
  'the app.asar electron-builder writes from the packaging copy',
  () => {
    it('holds the same layout (a stand-in for the Electron runtime, no download)', async () => {
      // electron-builder copies an unpacked Electron distribution given as `electronDist`
      // instead of downloading one; the app is packaged as for a release.
      const fakeElectron = path.join(temp, 'fake-electron');
      mkdirSync(path.join(fakeElectron, 'resources'), { recursive: true });
      writeFileSync(path.join(fakeElectron, 'electron'), '#!/bin/sh\n');
      chmodSync(path.join(fakeElectron, 'electron'), 0o755);
      for (const file of ['LICENSE', 'LICENSES.chromium.html']) {
        writeFileSync(path.join(fakeElectron, file), '');
      }
      writeFileSync(path.join(fakeElectron, 'version'), electronVersion(root));

      const { build, Platform } = await import('electron-builder');
      const output = path.join(temp, 'electron-builder');
      await build({
        projectDir: root,
        targets: Platform.LINUX.createTarget('dir'),
        config: {
          electronVersion: electronVersion(root),
          electronDist: fakeElectron,
          // Fuses are flipped in the real Electron binary only.
          electronFuses: null,
          directories: { app: staged.dir, output },
        },
      });
      checkArchive(path.join(output, 'linux-unpacked', 'resources', 'app.asar'), staged);
      // electron-builder.yml's extraResources: the desktop app's `herald send`, outside the
      // archive, where "Install command-line tool" (main/cli-install.ts) finds it.
      const cli = path.join(output, 'linux-unpacked', 'resources', 'cli', 'herald.mjs');
      expect(readFileSync(cli, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
      expect(readdirSync(path.dirname(cli))).toEqual(['herald.mjs']);
    }, 300_000);
  },
);

describe.skipIf(onPostgres())('dist', () => {
  const hostFlag = { linux: '--linux', darwin: '--mac', win32: '--win' }[
    process.platform as 'linux' | 'darwin' | 'win32'
  ];

  const projectBinary = path.join(
    root,
    'node_modules',
    'better-sqlite3',
    'build',
    'Release',
    'better_sqlite3.node',
  );

  /** What a rebuild for Electron 38 does to the copy: the binary rewritten in place, a marker. */
  function fakeElectronBuild(options: RebuildOptions, binary = 'node_register_module_v139'): void {
    const release = path.join(
      options.buildPath,
      'node_modules',
      'better-sqlite3',
      'build',
      'Release',
    );
    writeFileSync(path.join(release, 'better_sqlite3.node'), binary);
    writeFileSync(path.join(release, '.forge-meta'), `${options.arch}--139`);
  }

  it('rebuilds better-sqlite3 in the packaging copy only, then packages that copy', async () => {
    const before = { hash: sha256(projectBinary), mtime: statSync(projectBinary).mtimeMs };
    const rebuilds: RebuildOptions[] = [];
    const builds: { args: string[]; cwd: string }[] = [];
    const stagingDir = path.join(temp, 'dist-app');

    const result = await dist({
      root,
      args: [hostFlag, 'dir'],
      stagingDir,
      log: () => {},
      steps: {
        async rebuild(options) {
          rebuilds.push(options);
          fakeElectronBuild(options);
        },
        async electronBuilder(args, options) {
          builds.push({ args, cwd: options.cwd });
        },
      },
    });

    expect(result.dir).toBe(stagingDir);
    expect(rebuilds).toEqual([
      expect.objectContaining({
        buildPath: stagingDir,
        projectRootPath: stagingDir,
        onlyModules: ['better-sqlite3'],
        electronVersion: electronVersion(root),
        force: true,
      }),
    ]);
    expect(builds).toEqual([
      {
        args: [
          hostFlag,
          'dir',
          `--config.directories.app=${stagingDir}`,
          `--config.electronVersion=${electronVersion(root)}`,
        ],
        cwd: root,
      },
    ]);
    // The project's own binary is still the one npm built for Node, untouched.
    expect(sha256(projectBinary)).toBe(before.hash);
    expect(statSync(projectBinary).mtimeMs).toBe(before.mtime);
    expect(addonAbi(projectBinary)).toBe(process.versions.modules);
    expect(
      addonAbi(
        path.join(
          stagingDir,
          'node_modules',
          'better-sqlite3',
          'build',
          'Release',
          'better_sqlite3.node',
        ),
      ),
    ).toBe('139');
  }, 120_000);

  it('stops before electron-builder unless better-sqlite3 was built for Electron', async () => {
    const run = (name: string, rebuild: DistSteps['rebuild']) => {
      let packaged = false;
      const done = dist({
        root,
        args: [],
        stagingDir: path.join(temp, name),
        log: () => {},
        steps: {
          rebuild,
          async electronBuilder() {
            packaged = true;
          },
        },
      });
      return { done, packaged: () => packaged };
    };
    // Nothing rebuilt.
    const untouched = run('dist-unbuilt', async () => {});
    await expect(untouched.done).rejects.toThrow(/did not build better-sqlite3/);
    expect(untouched.packaged()).toBe(false);
    // Marked as built for Electron but compiled against Node's headers (npm's nodedir setting).
    const nodeHeaders = run('dist-node-headers', async (options) =>
      fakeElectronBuild(options, `node_register_module_v${process.versions.modules}`),
    );
    await expect(nodeHeaders.done).rejects.toThrow(/not built for Electron's ABI 139/);
    expect(nodeHeaders.packaged()).toBe(false);
  }, 120_000);

  it('tells addons built for one runtime from Node-API ones', () => {
    expect(addonAbi(projectBinary)).toBe(process.versions.modules);
    expect(addonAbi(path.join(root, 'node_modules/sqlite3/build/Release/node_sqlite3.node'))).toBe(
      null,
    );
  });

  /**
   * The native modules @electron/rebuild would build with these options: its real module search,
   * as Rebuilder.rebuild() runs it before building anything (so no download), that is the
   * (internal) module walker of @electron/rebuild 3.6, then its binding.gyp test.
   */
  async function modulesRebuilt(options: RebuildOptions): Promise<string[]> {
    const rebuilder = new Rebuilder({ ...options, lifecycle: new EventEmitter() });
    const walker = (rebuilder as unknown as { moduleWalker: ModuleWalker }).moduleWalker;
    await walker.walkModules();
    for (const dir of await walker.nodeModulesPaths) await walker.findAllModulesIn(dir);
    return [...walker.modulesToRebuild, options.buildPath].filter((dir) =>
      existsSync(path.join(dir, 'binding.gyp')),
    );
  }

  it("has @electron/rebuild build the copy's better-sqlite3 and nothing else", async () => {
    const options = rebuildOptions(staged.dir, electronVersion(root), distTarget([]));
    expect(options.onlyModules).toEqual(ELECTRON_REBUILD_MODULES);
    expect(await modulesRebuilt(options)).toEqual([
      realpathSync(path.join(staged.dir, 'node_modules', 'better-sqlite3')),
    ]);
  });

  it('keeps @electron/rebuild out of the node_modules of folders around the copy', async () => {
    // A copy inside a project: without projectRootPath, @electron/rebuild also walks up into the
    // project's node_modules (parent folders holding a package.json) and rebuilds its copy.
    const project = path.join(temp, 'around');
    const copy = path.join(project, 'out-app');
    for (const dir of [project, copy]) {
      const module = path.join(dir, 'node_modules', 'better-sqlite3');
      mkdirSync(module, { recursive: true });
      writeFileSync(
        path.join(module, 'package.json'),
        '{"name":"better-sqlite3","version":"1.0.0"}',
      );
      writeFileSync(path.join(module, 'binding.gyp'), '{}');
      writeFileSync(
        path.join(dir, 'package.json'),
        '{"name":"app","version":"1.0.0","dependencies":{"better-sqlite3":"1"}}',
      );
    }
    const options = rebuildOptions(copy, electronVersion(root), distTarget([]));
    const ours = realpathSync(path.join(copy, 'node_modules', 'better-sqlite3'));
    expect(await modulesRebuilt(options)).toEqual([ours]);
    const unbounded = await modulesRebuilt({ ...options, projectRootPath: undefined });
    expect(unbounded).toContain(realpathSync(path.join(project, 'node_modules', 'better-sqlite3')));
  });

  it('builds for this OS and architecture only', () => {
    const host = { platform: 'linux' as const, arch: 'x64' };
    expect(distTarget([], host)).toEqual(host);
    expect(distTarget(['--linux', 'AppImage', '--x64', '-p', 'never'], host)).toEqual(host);
    expect(() => distTarget(['--win'], host)).toThrow(/this computer's OS/);
    expect(() => distTarget(['-mwl'], host)).toThrow(/this computer's OS/);
    expect(() => distTarget(['--linux', 'deb:arm64'], host)).toThrow(/architecture/);
    expect(() => distTarget(['--universal'], host)).toThrow(/architecture/);
  });

  it('reads the Electron version from node_modules or else the lock file', () => {
    const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    const installed = path.join(root, 'node_modules', 'electron', 'package.json');
    const expected = existsSync(installed)
      ? (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version
      : lock.packages['node_modules/electron'].version;
    expect(electronVersion(root)).toBe(expected);
    expect(electronVersion(root)).toMatch(/^\d+\.\d+\.\d+/);
  });
});
