import { spawn, spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { cliFile, outDir } from '../../../scripts/build-server.mjs';
import { ensureServerBundle } from '../../helpers/server-bundle';
import { freePort } from '../../helpers/herald-process';

const root = path.join(import.meta.dirname, '..', '..', '..');
const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** The Dockerfile's last stage: the image that runs. Lines continued with `\` are joined. */
const finalStage = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split(/^FROM /m)
  .at(-1)!;
const instruction = (name: string) =>
  finalStage
    .split('\n')
    .filter((line) => line.startsWith(`${name} `))
    .map((line) => line.slice(name.length + 1).trim());
const execForm = (value: string) => JSON.parse(value.replace(/^.*?(\[.*\])$/, '$1')) as string[];

/** The image's ENV, as `KEY=value` pairs. */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of instruction('ENV'))
    for (const [, key, value] of line.matchAll(/(\w+)=(\S+)/g)) env[key!] = value!;
  return env;
}

const PACKAGE_NAME = /^(node:)?(@[a-z0-9._-]+\/)?[a-z0-9._-]+(\/[\w./-]*)?$/;

/** Bare module names the code reachable from `entry` imports, following the bundle's chunks. */
function bareImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, spec] of source.matchAll(
      // require(), esbuild's __require() and server/db/better-sqlite3.ts's nodeRequire().
      /(?:from\s*|import\s*\(\s*|\b(?:require|__require|nodeRequire)\(\s*)["']([^"']+)["']/g,
    )) {
      if (/^\.\.?\/[\w./-]+\.js$/.test(spec!)) visit(path.resolve(path.dirname(file), spec!));
      else if (PACKAGE_NAME.test(spec!))
        bare.add(
          spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!,
        );
    }
  };
  visit(entry);
  return bare;
}

/**
 * What the Docker image (Dockerfile) relies on, checked without Docker: its runtime stage
 * installs `dependencies` only, and its last stage runs `CMD` with its `ENV` from `/app` holding
 * the bundle, package.json and the console, with `HEALTHCHECK` deciding health. Building and
 * running the image itself needs a daemon: `npm run docker:check` (scripts/docker-check.ts).
 */
describe('the Docker image', () => {
  let app: string;
  let data: string;

  beforeAll(async () => {
    await ensureServerBundle();
    app = mkdtempSync(path.join(tmpdir(), 'herald-image-app-'));
    data = mkdtempSync(path.join(tmpdir(), 'herald-image-data-'));
    cpSync(path.join(root, 'package.json'), path.join(app, 'package.json'));
    cpSync(outDir, path.join(app, 'out', 'server'), { recursive: true });
    symlinkSync(path.join(root, 'node_modules'), path.join(app, 'node_modules'), 'dir');
  }, 120_000);
  afterAll(() => {
    rmSync(app, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });

  it('installs only dependencies in the runtime stage, and the server needs nothing else', () => {
    expect(dockerfile).toMatch(/npm ci --omit=dev --omit=optional/);
    expect(finalStage).toMatch(/COPY --from=runtime-deps \/app\/node_modules/);
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    // Required lazily, inside a try, by code Herald never reaches: Sequelize's hstore type
    // (pg-hstore) and a TypeScript loader a dependency offers (ts-node).
    const lazyOptional = new Set(['pg-hstore', 'ts-node']);
    const imported = bareImports(cliFile);
    // The scan finds the native modules the bundle leaves outside (else it proves nothing).
    expect([...imported]).toEqual(
      expect.arrayContaining(['argon2', 'better-sqlite3', 'sqlite3', 'pg']),
    );
    const missing = [...imported].filter(
      (name) => !builtins.has(name) && !(name in pkg.dependencies) && !lazyOptional.has(name),
    );
    expect(missing).toEqual([]);
  });

  it('builds without downloading Electron, which the server does not use', () => {
    const buildStage = dockerfile.split(/^FROM /m).find((stage) => / AS build\n/.test(stage))!;
    const skip = buildStage.indexOf('ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1');
    expect(skip).toBeGreaterThan(-1);
    expect(skip).toBeLessThan(buildStage.indexOf('npm ci'));
    expect(pkg.dependencies).not.toHaveProperty('electron');
  });

  it('runs as an unprivileged user with its data in a volume', () => {
    expect(instruction('USER')).toEqual(['node']);
    expect(instruction('VOLUME').join(' ')).toContain('/data');
    expect(imageEnv().HERALD_DATA_DIR).toBe('/data');
  });

  it('starts with its CMD and ENV from the image layout, and its HEALTHCHECK says healthy', async () => {
    const port = await freePort();
    const cmd = execForm(instruction('CMD')[0]!);
    expect(cmd[0]).toBe('node');
    const env = { ...imageEnv(), HERALD_DATA_DIR: data, HERALD_PORT: String(port) };
    const child = spawn(process.execPath, cmd.slice(1), {
      cwd: app,
      env: { PATH: process.env.PATH, NODE_OPTIONS: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      // The check runs in the container's environment: the image's ENV with the port a user
      // gave (`-e HERALD_PORT=…`), which it must follow.
      const healthcheck = execForm(instruction('HEALTHCHECK')[0]!);
      expect(healthcheck[0]).toBe('node');
      const check = (portEnv: Record<string, string>) =>
        spawnSync(process.execPath, healthcheck.slice(1), {
          timeout: 5000,
          env: { PATH: process.env.PATH, ...env, ...portEnv },
        }).status === 0;
      let healthy = false;
      for (let i = 0; i < 100 && !healthy; i++) {
        healthy = check({});
        if (!healthy) await new Promise((r) => setTimeout(r, 100));
      }
      expect(healthy, output).toBe(true);
      // Nothing listens on the image's default port here: the check must not pass by it.
      expect(check({ HERALD_PORT: String(await freePort()) })).toBe(false);
      // JSON logs, for the container's log driver: the health check's own access line.
      for (let i = 0; i < 50 && !/^\{"level":"info"/m.test(output); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(output).toMatch(/^\{"level":"info"/m);
      expect(existsSync(path.join(data, 'herald.db'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((r) => child.once('close', r));
      expect(code).toBe(0);
    }
  }, 60_000);
});
