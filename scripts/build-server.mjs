/**
 * Bundles the headless server and the `npm start` launcher with esbuild, so production runs
 * compiled JavaScript under plain Node (no TypeScript loader at run time):
 *   server/bin.ts    → out/server/cli.js       (`node out/server/cli.js`, the `herald` bin)
 *                      (tiny: it imports `start`'s server or `send`'s cli/ chunk when asked)
 *   scripts/launcher.ts → out/server/launcher.js  (what scripts/start.mjs runs)
 *   WORKER_ENTRIES      → out/server/write-worker.js, backup-worker.js, delivery-worker.js (worker threads,
 *                      each found beside the chunk that starts it: server/lib/worker-file.ts)
 * plus the chunk they share. Plain JavaScript, because scripts/start.mjs builds with it before
 * anything can compile TypeScript. Run: `node scripts/build-server.mjs`.
 * `buildPausedHerald` builds the same server behind the bench's paused entry into out/bench
 * (scripts/bench/paused-herald.ts): never shipped, built by the bench when it runs.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const outDir = path.join(root, 'out', 'server');
export const cliFile = path.join(outDir, 'cli.js');
export const launcherFile = path.join(outDir, 'launcher.js');
/**
 * Bundled CommonJS packages call require() (Sequelize loads sqlite3 that way, pino loads Node's
 * modules) and read __dirname/__filename; an ESM bundle has none of them. Shared with
 * scripts/build-main.ts.
 */
export const esmRequireBanner = {
  js: [
    "import { createRequire as __heraldCreateRequire } from 'node:module';",
    "import { fileURLToPath as __heraldFileURLToPath } from 'node:url';",
    "import { dirname as __heraldDirname } from 'node:path';",
    'const require = __heraldCreateRequire(import.meta.url);',
    'const __filename = __heraldFileURLToPath(import.meta.url);',
    'const __dirname = __heraldDirname(__filename);',
  ].join('\n'),
};
/** The sources the last build read, to tell whether it is stale. */
const inputsFile = path.join(outDir, 'inputs.json');

/**
 * Sequelize's sqlite dialect formats `new Error().stack` on every query to decorate a possible
 * error, although it reads it only when the query failed; formatting a stack walks and
 * symbolises every frame. The bundle reads it only on failure (the error keeps its stack).
 */
const sequelizeStackOnFailureOnly = {
  name: 'sequelize-stack-on-failure-only',
  setup(build) {
    build.onLoad({ filter: /sequelize[\\/]lib[\\/]dialects[\\/]sqlite[\\/]query\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const from = 'executionError, results, errForStack.stack)';
      const to = 'executionError, results, executionError ? errForStack.stack : undefined)';
      if (!source.includes(from)) {
        return {
          contents: source,
          loader: 'js',
          warnings: [
            { text: 'Sequelize changed: the per-query stack formatting is no longer skipped' },
          ],
        };
      }
      return { contents: source.replace(from, to), loader: 'js' };
    });
  },
};

/**
 * umzug's entry points load its command-line interface (and with it @rushstack's command-line
 * and file libraries, about a megabyte) at start, though Herald only calls `up()`. The bundle
 * gets a stand-in that refuses if anything ever asks for the CLI.
 */
const umzugWithoutCli = {
  name: 'umzug-without-cli',
  setup(build) {
    build.onResolve({ filter: /^\.\/cli$/ }, (args) =>
      /[\\/]umzug[\\/]lib$/.test(args.resolveDir)
        ? { path: 'umzug-cli', namespace: 'umzug-without-cli' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'umzug-without-cli' }, () => ({
      contents:
        "exports.UmzugCLI = class { constructor() { throw new Error('the umzug CLI is not part of the Herald bundle'); } };",
      loader: 'js',
    }));
  },
};

/**
 * What the bundles leave to node_modules (the server's here, the desktop app's main process in
 * scripts/build-main.ts): native modules load their binaries relative to their own folder,
 * Sequelize loads its dialect driver by name (pg; the others are never loaded), esbuild only
 * serves the launcher's build step, and electron is the desktop runtime's own.
 */
export const BUNDLE_EXTERNALS = [
  'sqlite3',
  'better-sqlite3',
  'argon2',
  'esbuild',
  'electron',
  'pg',
  'pg-hstore',
  'pg-native',
  'mysql2',
  'mariadb',
  'tedious',
  'oracledb',
  'ibm_db',
  'snowflake-sdk',
];

/**
 * The worker threads' entries (server/workers/, which says why each exists), by the name of the
 * file each is compiled to beside the bundle that starts it (out/server here, out/main in
 * scripts/build-main.ts; found by server/lib/worker-file.ts): the SQLite write thread, the
 * backup thread and the delivery thread.
 */
export const WORKER_ENTRIES = {
  'write-worker': 'server/workers/write-worker.ts',
  'backup-worker': 'server/workers/backup-worker.ts',
  'delivery-worker': 'server/workers/delivery-worker.ts',
};

/** WORKER_ENTRIES as esbuild entry points: each output name → its source's absolute path. */
export const workerEntryPoints = () =>
  Object.fromEntries(
    Object.entries(WORKER_ENTRIES).map(([name, file]) => [name, path.join(root, file)]),
  );

/** The esbuild plugins every Herald bundle that holds the server uses. */
export const bundlePlugins = [sequelizeStackOnFailureOnly, umzugWithoutCli];

/** Builds out/server from scratch and records the sources it read. */
export async function buildServer() {
  const result = await bundle(
    {
      cli: path.join(root, 'server', 'bin.ts'),
      launcher: path.join(root, 'scripts', 'launcher.ts'),
      ...workerEntryPoints(),
    },
    outDir,
  );
  // Plugin stand-ins appear as "namespace:name" and have no file: a missing file would make
  // every later start rebuild.
  const inputs = Object.keys(result.metafile.inputs)
    .filter((file) => !file.includes('node_modules') && existsSync(path.resolve(root, file)))
    .concat('package.json', 'package-lock.json');
  writeFileSync(inputsFile, JSON.stringify(inputs));
  return { cliFile, launcherFile };
}

/** The bench's paused Herald (scripts/bench/paused-herald.ts), built as out/server is. */
export const pausedHeraldFile = path.join(root, 'out', 'bench', 'paused-herald.js');

/**
 * Builds out/bench afresh: the production server's code, behind the bench's own entry; then
 * stops esbuild's service process, as ensureServerBuilt does.
 */
export async function buildPausedHerald() {
  await bundle(
    {
      'paused-herald': path.join(root, 'scripts', 'bench', 'paused-herald.ts'),
      ...workerEntryPoints(),
    },
    path.dirname(pausedHeraldFile),
  );
  const { stop } = await import('esbuild');
  await stop();
  return pausedHeraldFile;
}

/** Bundles the entry points into `dir`, emptied first, with the production server's settings. */
async function bundle(entryPoints, dir) {
  const { build } = await import('esbuild');
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints,
    outdir: dir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Native modules load their binaries relative to their own folder; esbuild and electron
    // only serve the desktop launcher's build step; the other dialects are never loaded.
    external: [...BUNDLE_EXTERNALS],
    banner: esmRequireBanner,
    define: {
      __HERALD_VERSION__: JSON.stringify(pkg.version),
      // Libraries skip their development checks; Express runs in production mode.
      'process.env.NODE_ENV': '"production"',
    },
    plugins: bundlePlugins,
    // Written beside the bundle, not loaded: `NODE_OPTIONS=--enable-source-maps` maps stacks to
    // the TypeScript sources when someone needs it, at a cost per stack trace.
    sourcemap: 'linked',
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: 'warning',
  });
  await keepOutputAscii(dir);
  return result;
}

/**
 * Keeps every output script ASCII, so V8 holds its source at one byte per character (see
 * ascii-regex-literals.mjs). The few escaped characters shift later columns of their own line
 * in the source map; those lines hold only validator's alphabet tables.
 */
async function keepOutputAscii(dir) {
  // Loaded here, like esbuild: `npm start` imports this file on every start, mostly not to build.
  const { escapeRegexLiterals } = await import('./ascii-regex-literals.mjs');
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.js')) continue;
    const file = path.join(dir, name);
    const before = readFileSync(file, 'utf8');
    const { source, leftNonAscii } = escapeRegexLiterals(before);
    if (source !== before) writeFileSync(file, source);
    if (leftNonAscii > 0) {
      console.warn(
        `${path.relative(root, file)}: ${leftNonAscii} non-ASCII characters outside regex literals; V8 will hold this script as UTF-16`,
      );
    }
  }
}

const mtime = (file) => {
  try {
    return statSync(path.resolve(root, file)).mtimeMs;
  } catch {
    return Infinity;
  }
};

/** True when out/server is missing or older than a source it was built from. */
export function serverBuildIsStale() {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    return true;
  }
  const built = Math.min(mtime(cliFile), mtime(launcherFile));
  if (built === Infinity) return true;
  return inputs.some((file) => mtime(file) > built);
}

/** Builds out/server when it is missing or stale; esbuild's service process is stopped after. */
export async function ensureServerBuilt() {
  if (!serverBuildIsStale()) return false;
  await buildServer();
  const { stop } = await import('esbuild');
  await stop();
  return true;
}

const isMain =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  buildServer().then(
    (built) => {
      console.log(
        `built ${path.relative(root, built.cliFile)} and ${path.relative(root, built.launcherFile)}`,
      );
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
