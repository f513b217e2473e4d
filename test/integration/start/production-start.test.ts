import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { outDir, serverBuildIsStale } from '../../../scripts/build-server.mjs';
import { checkBackup } from '../../../server/features/backup/backup-check';
import { PNG_BYTES } from '../../fixtures/peers/attachment-files';
import { ADMIN, ConsoleClient, textInstances } from '../../helpers/herald';
import { freePort } from '../../helpers/herald-process';
import { startHttpPeer } from '../../helpers/recording-peer';
import { ensureServerBundle } from '../../helpers/server-bundle';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';
import { buildSqliteMessageNest } from '../message-nest/mn-fixture';

const root = path.join(import.meta.dirname, '..', '..', '..');

/**
 * `npm start` runs the compiled bundle (scripts/start.mjs → out/server). These tests build it
 * unless it is up to date (once per run: test/helpers/server-bundle.ts) and start it as a user
 * does, headless.
 */
describe('the production bundle behind npm start', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'herald-bundle-'));
    await ensureServerBundle();
  }, 120_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is up to date right after a build, so a start does not rebuild it', () => {
    expect(serverBuildIsStale()).toBe(false);
  });

  it('is ASCII throughout, so V8 keeps its source at one byte per character', () => {
    for (const name of readdirSync(outDir).filter((n) => n.endsWith('.js'))) {
      const source = readFileSync(path.join(outDir, name), 'utf8');
      const offending = /[\u0080-\uffff]/.exec(source);
      expect(
        offending && source.slice(offending.index - 40, offending.index + 10),
        name,
      ).toBeNull();
    }
  });

  /** `node FILE ARGS`: plain Node, no TypeScript loader (NODE_OPTIONS cleared). */
  const runNode = (file: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [file, ...args], {
        env: { ...process.env, NODE_OPTIONS: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
  /** `node out/server/cli.js ARGS`, the `herald` bin. */
  const runBin = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runNode(path.join(outDir, 'cli.js'), args, env);

  it('is the herald bin: --help lists the commands, and send loads no server code', async () => {
    const help = await runBin(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}start {16}run Herald headless/m);
    expect(help.stdout).toMatch(/^ {2}send {17}send one message/m);
    expect(help.stdout).toMatch(/^ {2}import-message-nest {2}import a Message Nest database/m);
    expect(help.stdout).toMatch(/^ {2}migrate-to-postgres {2}copy a stopped SQLite install/m);
    expect(help.stdout).toMatch(/^ {2}backup {15}back up a data folder/m);
    expect(help.stdout).toMatch(/^ {2}restore {14}fill a data folder from a backup/m);
    expect(help.stdout).toMatch(/^ {2}admin {16}list accounts, or reset a lost password/m);
    expect(help.stdout).toMatch(/^ {2}rotate-key {11}re-seal every stored secret/m);
    for (const [command, usage] of [
      ['start', 'Usage: herald [start]'],
      ['import-message-nest', 'Usage: herald import-message-nest <source>'],
      ['migrate-to-postgres', 'Usage: herald migrate-to-postgres <data folder>'],
      ['backup', 'Usage: herald backup --out FILE'],
      ['restore', 'Usage: herald restore FILE'],
      ['admin', 'Usage: herald admin <command>'],
      ['rotate-key', 'Usage: herald rotate-key [--data-dir DIR] [--tokens]'],
    ]) {
      const sub = await runBin([command, '--help']);
      expect([sub.code, sub.stdout], command).toEqual([0, expect.stringContaining(usage)]);
    }
    const unknown = await runBin(['imprt']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'herald: unknown command "imprt" (did you mean "import-message-nest"?)',
    );
    expect(unknown.stderr).toContain('Commands:');
    const sendHelp = await runBin(['send', '--help']);
    expect([sendHelp.code, sendHelp.stdout]).toEqual([0, expect.stringContaining('Examples:')]);

    // What `herald send` loads: the entry, the send chunk it imports when asked, and every chunk
    // those import statically. None holds the server (Express, Sequelize, zod).
    const importsOf = (file: string) =>
      [
        ...readFileSync(path.join(outDir, file), 'utf8').matchAll(
          /(?:from|import)\s*"\.\/([^"]+)"/g,
        ),
      ].map((m) => m[1]);
    const entry = readFileSync(path.join(outDir, 'cli.js'), 'utf8');
    const sendChunk = /import\("\.\/(send-[^"]+)"\)/.exec(entry)?.[1];
    expect(sendChunk).toBeDefined();
    const loaded = new Set<string>();
    const queue = ['cli.js', sendChunk!, ...importsOf('cli.js')];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (loaded.has(file)) continue;
      loaded.add(file);
      queue.push(...importsOf(file));
    }
    for (const file of loaded) {
      const source = readFileSync(path.join(outDir, file), 'utf8');
      expect(source.length, file).toBeLessThan(50_000);
      expect(source, file).not.toMatch(/sequelize|express|zod/i);
    }
  }, 120_000);

  it("runs the one-off jobs' npm scripts from the bundle, with no TypeScript loader installed for them", async () => {
    const pkg = JSON.parse(readFileSync(path.join(outDir, '..', '..', 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    for (const [script, job] of [
      ['import:message-nest', 'import-message-nest'],
      ['migrate:to-postgres', 'migrate-to-postgres'],
      ['backup', 'backup'],
      ['restore', 'restore'],
      ['admin', 'admin'],
      ['rotate-key', 'rotate-key'],
    ]) {
      expect(pkg.scripts[script], script).toBe(`node scripts/herald.mjs ${job}`);
    }
    // Production installs (`npm ci --omit=dev`, the Docker image) carry no TypeScript loader.
    expect(Object.keys(pkg.dependencies)).not.toContain('tsx');
    const run = await runNode(path.join(outDir, '..', '..', 'scripts', 'herald.mjs'), [
      'restore',
      '--help',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: herald restore FILE');
    // Up to date, so nothing was built.
    expect(run.stderr).not.toContain('Built the server bundle');
  });

  // The tests run the sources; the bundle splits modules into chunks (some loaded only when
  // first used) whose exports can differ from the sources' view: a whole send, accept to
  // delivery, runs through it.
  it('starts headless without rebuilding, delivers a webhook, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const peer = await startHttpPeer();
    const child = spawn(
      process.execPath,
      ['scripts/start.mjs', '--headless', '--data-dir', dataDir, '--port', String(port)],
      {
        cwd: root,
        env: {
          ...process.env,
          HERALD_ADMIN_USER: ADMIN.username,
          HERALD_ADMIN_PASSWORD: ADMIN.password,
          HERALD_DATABASE_URL: '',
          // Warnings too: a delivery thread that cannot start says so at that level.
          HERALD_LOG: 'warn',
          // The suite's own builds of the worker threads stay out: the bundle finds its own.
          HERALD_WRITE_WORKER_FILE: '',
          HERALD_BACKUP_WORKER_FILE: '',
          HERALD_DELIVERY_WORKER_FILE: '',
          // The webhook below is delivered by the bundle's delivery thread.
          HERALD_DELIVERY_THREAD: 'on',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exit = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    try {
      let health: Response | undefined;
      for (let i = 0; i < 600 && !health; i++) {
        health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        if (!health) await new Promise((r) => setTimeout(r, 50));
      }
      expect(health?.status, output).toBe(200);
      expect(output).toContain('Starting Herald headless');
      expect(output).not.toContain('Built the server bundle');

      const url = `http://127.0.0.1:${port}`;
      const client = new ConsoleClient(url);
      await client.ok('POST', '/login', ADMIN);
      const channel = await client.ok('POST', '/channels', {
        name: 'bundle-hook',
        type: 'webhook',
        config: { url: `${peer.url}/bundle` },
      });
      const { token } = await client.createTemplate(
        { name: 'bundle', text: 'hi {{who}}', placeholders: [{ key: 'who', label: 'Who' }] },
        textInstances([channel.id]),
      );
      const sent = await fetch(`${url}/api/v2/message/send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token, title: 'from the bundle', placeholders: { who: 'there' } }),
      });
      expect(((await sent.json()) as { code: number }).code, output).toBe(200);
      const [delivered] = await peer.waitForRequests(1, 20_000);
      expect(delivered.url).toBe('/bundle');
      expect(delivered.body).toContain('hi there');
      expect(existsSync(path.join(outDir, 'delivery-worker.js'))).toBe(true);
      expect(output).not.toMatch(/delivery thread/);

      // A file sent with a message: its type is read from its bytes by file-type, an ESM-only
      // package the bundle loads on first use, and the delivery thread hands it on.
      const form = new FormData();
      form.append(
        'payload_json',
        JSON.stringify({ token, title: 'with a file', placeholders: { who: 'a file' } }),
      );
      form.append('files[]', new Blob([PNG_BYTES]), 'screenshot.bin');
      const withFile = await fetch(`${url}/api/v2/message/send`, { method: 'POST', body: form });
      expect(((await withFile.json()) as { code: number }).code, output).toBe(200);
      const [, second] = await peer.waitForRequests(2, 20_000);
      const { attachments } = JSON.parse(second.body) as {
        attachments: Array<{ url: string; name: string; type: string; size: number }>;
      };
      expect(attachments).toEqual([
        expect.objectContaining({
          name: 'screenshot.bin',
          type: 'image/png',
          size: PNG_BYTES.length,
        }),
      ]);
      const served = await fetch(attachments[0]!.url);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await served.arrayBuffer()).equals(PNG_BYTES)).toBe(true);

      // The console's backup, made by the backup thread the bundle holds (beside its chunks).
      expect(existsSync(path.join(outDir, 'backup-worker.js'))).toBe(true);
      const backup = await fetch(`${url}/api/console/backup`, {
        headers: { Cookie: client.cookie },
      });
      expect(backup.status, output).toBe(200);
      const file = path.join(dataDir, 'download.herald-backup');
      writeFileSync(file, Buffer.from(await backup.arrayBuffer()));
      expect(checkBackup(file, 'the download').meta.keyFingerprint).not.toBe('');
    } finally {
      child.kill('SIGTERM');
      await peer.close();
    }
    expect(await exit, output).toBe(0);
  }, 60_000);
  it('runs the one-off jobs with plain Node: a Message Nest import, then a move to PostgreSQL', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'herald-bundle-jobs-'));
    const database = await createTestDatabase();
    try {
      const mnFile = path.join(work, 'database.db');
      await buildSqliteMessageNest(mnFile);
      const data = path.join(work, 'data');
      const env = { HERALD_SECRET_KEY: '', HERALD_DATABASE_URL: '' };
      const imported = await runBin(['import-message-nest', mnFile, '--data-dir', data], env);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toContain(`Imported into ${data}.`);
      expect(imported.stderr).toContain('  message_send_ways: 15 / 15 rows (100 %)\n');
      expect(imported.stderr).toContain('  done, 6 tables: 34 / 34 rows (100 %)\n');

      const moved = await runBin(['migrate-to-postgres', data, database.url], env);
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stdout).toMatch(/^channels\s+14\s+14$/m);
      expect(moved.stderr).toContain('  channels: 14 / 14 rows (100 %)\n');
      expect(moved.stderr).toMatch(/^ {2}done, \d+ tables: [\d ]+ \/ [\d ]+ rows \(100 %\)$/m);
    } finally {
      rmSync(work, { recursive: true, force: true });
      await dropTestDatabase(database.name);
    }
  }, 120_000);
});
