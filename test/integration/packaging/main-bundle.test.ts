/**
 * The desktop app's main-process bundle (out/main), read and run without Electron:
 * - main/index.ts loads the server with a dynamic import, so no native module is imported by
 *   anything the entry imports statically: one that fails to load (a binary for a newer glibc,
 *   a quarantined file) is caught by runDesktopApp's start-up and shown in Herald's own dialog;
 * - every bundle has NODE_ENV folded in as production (scripts/build-main.ts `define`), so the
 *   bundled packages never run in development mode for a user;
 * - the server chunk, loaded as main/index.ts loads it, starts and delivers with a
 *   better-sqlite3 whose binary is broken: node-sqlite3 is a real fallback.
 *
 * Nothing here touches a database of the test's choosing: the PostgreSQL pass skips this file.
 */
import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Parser } from 'acorn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN, ConsoleClient, textInstances } from '../../helpers/herald';
import { ensureMainBundle } from '../../helpers/main-bundle';
import { startHttpPeer } from '../../helpers/recording-peer';
import { onPostgres } from '../../helpers/test-database';

const root = path.resolve(import.meta.dirname, '../../..');
const outMain = path.join(root, 'out', 'main');
const NATIVE = ['better-sqlite3', 'sqlite3', 'argon2'];

interface Imports {
  /** Specifiers of `import … from "x"` and `export … from "x"`. */
  static: string[];
  /** Specifiers of `import("x")` with a literal. */
  dynamic: string[];
}

/** The import statements and expressions of an ES module, read by a real parser. */
function importsOf(file: string): Imports {
  const program = Parser.parse(readFileSync(file, 'utf8'), {
    ecmaVersion: 'latest',
    sourceType: 'module',
  }) as unknown as { body: Array<{ type: string; source?: { value: string } | null }> };
  const found: Imports = { static: [], dynamic: [] };
  for (const node of program.body) {
    if (
      (node.type === 'ImportDeclaration' ||
        node.type === 'ExportNamedDeclaration' ||
        node.type === 'ExportAllDeclaration') &&
      node.source
    ) {
      found.static.push(node.source.value);
    }
  }
  // Dynamic imports can sit anywhere; esbuild writes them as import("./chunk.js").
  for (const match of readFileSync(file, 'utf8').matchAll(/\bimport\("(\.\/[^"]+)"\)/g)) {
    found.dynamic.push(match[1]!);
  }
  return found;
}

/** The outputs `entry` loads before running (its static imports, followed), and the packages. */
function staticClosure(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of importsOf(path.join(outMain, file)).static) {
      if (specifier.startsWith('./')) queue.push(specifier.slice(2));
      else packages.add(specifier);
    }
  }
  return { files: [...files], packages: [...packages] };
}

describe.skipIf(onPostgres())('the main-process bundle (out/main)', () => {
  beforeAll(async () => {
    await ensureMainBundle();
  }, 300_000);

  it('imports no native module before runDesktopApp starts: the server comes by a dynamic import', () => {
    const entry = staticClosure('index.js');
    expect(entry.packages.filter((name) => NATIVE.includes(name))).toEqual([]);
    // main/index.ts's import('../server/index'), as esbuild wrote it.
    const dynamic = importsOf(path.join(outMain, 'index.js')).dynamic;
    expect(dynamic).toHaveLength(1);
    const server = staticClosure(dynamic[0]!.slice(2));
    expect(server.packages).toEqual(expect.arrayContaining(['sqlite3', 'argon2']));
    // better-sqlite3 only on first use (server/db/better-sqlite3.ts): node-sqlite3 takes over
    // when it cannot load, so importing the server must not need it.
    expect(server.packages).not.toContain('better-sqlite3');
  });

  it('has NODE_ENV folded in as production in every bundle, the worker threads included', () => {
    const scripts = readdirSync(outMain).filter((name) => name.endsWith('.js'));
    expect(scripts).toEqual(expect.arrayContaining(['index.js', 'delivery-worker.js']));
    for (const name of scripts) {
      const source = readFileSync(path.join(outMain, name), 'utf8');
      // Express, Sequelize and the rest read process.env.NODE_ENV; `define` replaced each read.
      expect(source.match(/process\.env\.NODE_ENV\b/g) ?? [], name).toEqual([]);
    }
  });

  describe.each([
    [
      'a broken better-sqlite3 binary',
      'broken',
      /better-sqlite3 does not load here \([^)]*better_sqlite3\.node/,
    ],
    [
      'no better-sqlite3 at all',
      'missing',
      /better-sqlite3 does not load here \(Error: Cannot find module 'better-sqlite3'/,
    ],
  ] as const)('with %s', (_what, damage, warning) => {
    let app: string;
    let dataDir: string;

    beforeAll(() => {
      // An installed app whose better-sqlite3 cannot be loaded: the bundle beside a node_modules
      // of links to the project's packages, and a copy of better-sqlite3 with its binary
      // replaced (a truncated or quarantined file), or none (a package left out).
      app = mkdtempSync(path.join(tmpdir(), 'herald-broken-native-'));
      dataDir = path.join(app, 'data');
      cpSync(outMain, path.join(app, 'out', 'main'), { recursive: true });
      const modules = path.join(app, 'node_modules');
      mkdirSync(modules);
      for (const name of readdirSync(path.join(root, 'node_modules'))) {
        if (name === 'better-sqlite3' || name.startsWith('.')) continue;
        symlinkSync(path.join(root, 'node_modules', name), path.join(modules, name));
      }
      if (damage === 'missing') return;
      cpSync(
        path.join(root, 'node_modules', 'better-sqlite3'),
        path.join(modules, 'better-sqlite3'),
        { recursive: true },
      );
      writeFileSync(
        path.join(modules, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
        'not a shared object',
      );
    });
    afterAll(() => rmSync(app, { recursive: true, force: true }));

    it('starts Herald from the server chunk on node-sqlite3, says why, and delivers', async () => {
      const chunk = importsOf(path.join(app, 'out', 'main', 'index.js')).dynamic[0]!;
      // What main/index.ts's loadServer does, then what boot does with the function it gets.
      const script = `
        const { startServer } = await import(${JSON.stringify(new URL(chunk, `file://${path.join(app, 'out', 'main')}/`).href)});
        const server = await startServer({
          host: '127.0.0.1', port: 0, dataDir: process.argv[1], rendererDir: process.argv[2],
          desktopSecret: 'x'.repeat(43), takeOverDataDirLock: true, backupsByDefault: true,
        });
        console.log('LISTENING ' + server.url);
        process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
      `;
      const child = spawn(
        process.execPath,
        ['--input-type=module', '-e', script, dataDir, path.join(root, 'renderer', 'dist')],
        {
          env: {
            ...process.env,
            NODE_OPTIONS: '',
            HERALD_ADMIN_USER: ADMIN.username,
            HERALD_ADMIN_PASSWORD: ADMIN.password,
            HERALD_DATABASE_URL: '',
            HERALD_LOG: 'warn',
            HERALD_WRITE_WORKER_FILE: '',
            HERALD_BACKUP_WORKER_FILE: '',
            HERALD_DELIVERY_WORKER_FILE: '',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exit = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
      const peer = await startHttpPeer();
      try {
        for (let i = 0; i < 600 && !/LISTENING (\S+)/.test(output); i++) {
          if (child.exitCode !== null) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        const url = /LISTENING (\S+)/.exec(output)?.[1];
        expect(url, output).toBeDefined();
        expect(output).toMatch(warning);
        expect(output).toContain('using node-sqlite3');

        const client = new ConsoleClient(url!);
        await client.ok('POST', '/login', ADMIN);
        const channel = await client.ok('POST', '/channels', {
          name: 'fallback-hook',
          type: 'webhook',
          config: { url: `${peer.url}/fallback` },
        });
        const { token } = await client.createTemplate(
          {
            name: 'fallback',
            text: 'on {{driver}}',
            placeholders: [{ key: 'driver', label: 'D' }],
          },
          textInstances([channel.id]),
        );
        const sent = await fetch(`${url}/api/v2/message/send`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ token, title: 't', placeholders: { driver: 'sqlite3' } }),
        });
        expect(((await sent.json()) as { code: number }).code, output).toBe(200);
        const [delivered] = await peer.waitForRequests(1, 20_000);
        expect(delivered.body).toContain('on sqlite3');
      } finally {
        child.kill('SIGTERM');
        await peer.close();
      }
      expect(await exit, output).toBe(0);
    }, 120_000);
  });
});
