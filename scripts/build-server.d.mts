/** Types of scripts/build-server.mjs (plain JavaScript, see there). */
export declare const outDir: string;
export declare const cliFile: string;
export declare const launcherFile: string;
export declare function buildServer(): Promise<{ cliFile: string; launcherFile: string }>;
export declare function serverBuildIsStale(): boolean;
/** The bench's paused Herald, out/bench/paused-herald.js. */
export declare const pausedHeraldFile: string;
/** Builds out/bench afresh (scripts/bench/paused-herald.ts with the server), stops esbuild; its entry file. */
export declare function buildPausedHerald(): Promise<string>;
export declare function ensureServerBuilt(): Promise<boolean>;
/** The banner that gives an ESM bundle require(), __filename and __dirname. */
export declare const esmRequireBanner: { js: string };
/** What the bundles leave to node_modules (natives, dialect drivers, electron, esbuild). */
export declare const BUNDLE_EXTERNALS: readonly string[];
/** The worker threads' entries: the file each is compiled to (without .js) → its source. */
export declare const WORKER_ENTRIES: Readonly<
  Record<'write-worker' | 'backup-worker' | 'delivery-worker', string>
>;
/** WORKER_ENTRIES as esbuild entry points: each output name → its source's absolute path. */
export declare function workerEntryPoints(): Record<keyof typeof WORKER_ENTRIES, string>;
/** The esbuild plugins every bundle that holds the server uses. */
export declare const bundlePlugins: import('esbuild').Plugin[];
