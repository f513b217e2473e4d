import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KEY_FILE } from '../../../server/crypto/server-key';
import { DB_FILE, precreateDatabase } from '../../../server/data-dir/permissions';
import { openDatabase } from '../../../server/db/database';
import { migrate } from '../../../server/db/migrate';
import { openPostgresDatabase } from '../../../server/db/postgres/open-postgres';
import { startServer, type HeraldServer } from '../../../server/index';
import { ADMIN, ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';
import { heraldArgs } from '../../helpers/herald-bin';

/* eslint-disable @typescript-eslint/no-explicit-any -- the console's JSON answers */

const ROOT = join(import.meta.dirname, '..', '..', '..');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The command as a user runs it (`npm run migrate:to-postgres -- …`, which is
 * `herald migrate-to-postgres …` from the sources), in its own process.
 */
function runMove(...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      heraldArgs(['migrate-to-postgres', ...args]),
      { cwd: ROOT, env: { ...process.env, HERALD_SECRET_KEY: '' } },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** What tells whether a folder was touched: every file's bytes and mtime, and the file names. */
function fingerprint(dir: string) {
  const file = join(dir, DB_FILE);
  return {
    files: readdirSync(dir).sort(),
    sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
    mtimeMs: statSync(file).mtimeMs,
  };
}

/** The console's views that must read the same on both databases (share links name the origin). */
async function views(c: ConsoleClient) {
  return JSON.parse(JSON.stringify(await rawViews(c)).replaceAll(c.baseUrl, 'ORIGIN'));
}

async function rawViews(c: ConsoleClient) {
  const logs = await c.ok('GET', '/logs?pageSize=100');
  const details = [];
  for (const row of logs.items) details.push(await c.ok('GET', `/logs/${row.id}`));
  return {
    channels: await c.ok('GET', '/channels'),
    tasks: await c.ok('GET', '/tasks?pageSize=100'),
    templates: await c.ok('GET', '/templates?pageSize=100'),
    templateDetail: await c.ok(
      'GET',
      `/templates/${(await c.ok('GET', '/templates')).items[0].id}`,
    ),
    schedules: await c.ok('GET', '/schedules?pageSize=100'),
    logs,
    details,
    logSearch: await c.ok('GET', `/logs?q=${encodeURIComponent('数据库')}`),
    messages: await c.ok('GET', '/messages?pageSize=100'),
    searchEnglish: await c.ok('GET', '/messages?q=backup'),
    searchChinese: await c.ok('GET', `/messages?q=${encodeURIComponent('告警')}`),
    searchLong: await c.ok('GET', `/messages?q=${encodeURIComponent('数据库延迟')}`),
    unread: await c.ok('GET', '/messages/unread-count'),
    stats: await c.ok('GET', '/stats?days=30'),
    settings: (({ about: _about, ...rest }) => rest)(await c.ok('GET', '/settings')),
  };
}

async function waitFor<T>(check: () => T | false | Promise<T | false>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waitFor: not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

// One journey: its steps build on each other, so they run in order even when CI shuffles.
describe('npm run migrate:to-postgres', { shuffle: false }, () => {
  const env = process.env.HERALD_TEST_DATABASE;
  let source: TestHerald;
  let dataDir: string;
  let peer: HttpPeer;
  let v1Token: string;
  let v2Token: string;
  let before: Awaited<ReturnType<typeof rawViews>>;
  let sourceState: ReturnType<typeof fingerprint>;
  const scratch: string[] = [];
  const databases: string[] = [];

  const freshDatabase = async () => {
    const db = await createTestDatabase();
    databases.push(db.name);
    return db.url;
  };

  beforeAll(async () => {
    // The source is a SQLite install whatever database the other tests run on.
    delete process.env.HERALD_TEST_DATABASE;
    peer = await startHttpPeer();
    source = await startTestHerald({ settings: { retry: { maxAttempts: 2 } } });
    dataDir = source.dataDir;
    const inbox = await source.createChannel('hosted', {}, 'inbox');
    const hook = await source.createChannel(
      'webhook',
      { url: `${peer.url}/hook`, secretHeaders: { Authorization: 'Bearer sealed-in-sqlite' } },
      'hook',
    );
    const broken = await source.createChannel('webhook', { url: `${peer.url}/broken` }, 'broken');
    peer.script = [];
    const template = await source.createTemplate(
      {
        text: '{{host}}: {{what}}',
        placeholders: [
          { key: 'host', label: 'Host' },
          { key: 'what', label: 'What' },
        ],
      },
      [
        { channelId: inbox.id, contentType: 'text' },
        { channelId: hook.id, contentType: 'text' },
      ],
    );
    v2Token = template.token;
    const task = await source.createTask('nightly', [{ channelId: inbox.id, contentType: 'text' }]);
    v1Token = task.token;
    const failing = await source.createTask('broken-task', [
      { channelId: broken.id, contentType: 'text' },
    ]);

    const sends: Array<[string, string]> = [
      ['数据库延迟告警', '主库 数据库延迟 超过 5 秒'],
      ['backup done', 'nightly backup finished'],
      ['磁盘告警', 'disk at 98%'],
      ['deploy', '部署 完成'],
    ];
    for (const [title, what] of sends) {
      const r = await source.sendV2({
        token: v2Token,
        title,
        placeholders: { host: 'web-3', what },
      });
      expect(r.body.code).toBe(200);
    }
    for (const text of ['backup started', 'backup verified']) {
      const r = await source.sendV1(
        { token: v1Token, title: 'Backup', text, mode: 'async' },
        {
          'Idempotency-Key': `key-${text}`,
        },
      );
      expect(r.body.code).toBe(200);
    }
    peer.defaultReply = { status: 200, body: '{"ok":true}' };
    await source.sendV1({ token: failing.token, title: 'will fail', text: 'x', mode: 'async' });
    await source.console.ok('POST', '/schedules', {
      name: 'morning',
      taskId: task.task.id,
      cron: '0 9 * * 1-5',
      timezone: 'UTC',
      title: 'Good morning',
      text: 'daily report',
    });
    // Every delivery finished, so nothing moves while the views are compared.
    await source.waitFor(async () => {
      const logs = await source.console.ok('GET', '/logs?pageSize=100');
      return logs.items.length === 7 && logs.items.every((s: any) => s.status !== 'pending');
    }, 20_000);
    const messages = await source.console.ok('GET', '/messages');
    await source.console.ok('PATCH', `/messages/${messages.items[0].id}`, { read: true });
    // A share link: the preview key travels with the message.
    await source.console.ok('POST', `/messages/${messages.items[1].id}/link`);
    before = await views(source.console);
    expect(before.logs.items).toHaveLength(7);
    expect(before.searchChinese.items.length).toBeGreaterThan(0);
    // A stopped install, as the move expects; its database stays for the tests.
    await source.close();
  }, 60_000);

  afterAll(async () => {
    if (env === undefined) delete process.env.HERALD_TEST_DATABASE;
    else process.env.HERALD_TEST_DATABASE = env;
    await source?.close(true);
    await peer?.close();
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    for (const name of databases) await dropTestDatabase(name);
  });

  it('refuses while Herald runs on the folder', async () => {
    // A copy of the install, so the one the other tests move stays stopped and untouched.
    const running = mkdtempSync(join(tmpdir(), 'herald-move-'));
    scratch.push(running);
    for (const name of [DB_FILE, KEY_FILE]) copyFileSync(join(dataDir, name), join(running, name));
    const herald = await startTestHerald({ dataDir: running, setup: false });
    try {
      const r = await runMove(running, await freshDatabase());
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Herald is running on ${running}`);
      expect(r.stderr).toContain('Nothing was copied');
    } finally {
      await herald.close();
    }
  }, 30_000);

  it('refuses a folder that holds no Herald database', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'herald-move-'));
    scratch.push(empty);
    const r = await runMove(empty, await freshDatabase());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not a Herald data folder');
  }, 30_000);

  it('refuses a folder whose migrations are older than the code', async () => {
    const old = mkdtempSync(join(tmpdir(), 'herald-move-'));
    scratch.push(old);
    const db = await openDatabase(precreateDatabase(old));
    await migrate(db.sequelize, '2026-11-23-1100-history-index');
    await db.close();
    const url = await freshDatabase();
    const r = await runMove(old, url);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('start this version of Herald on it once');
  }, 30_000);

  it('refuses a database it cannot reach', async () => {
    const r = await runMove(dataDir, 'postgres://postgres@127.0.0.1:1/herald');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot reach PostgreSQL at postgres://postgres@127.0.0.1:1/herald');
  }, 30_000);

  it('moves into a database that holds only Herald’s empty schema, as a failed move leaves it', async () => {
    const url = await freshDatabase();
    const db = await openPostgresDatabase(url);
    await migrate(db.sequelize);
    await db.close();
    const r = await runMove(dataDir, url);
    // Only progress lines (indented) on stderr: no warning, no error.
    expect(r.stderr.split('\n').filter((line) => line && !line.startsWith('  '))).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sends\s+7\s+7$/m);
  }, 60_000);

  describe('on a stopped install', () => {
    let url: string;
    let moved: CliResult;
    let herald: HeraldServer;
    let client: ConsoleClient;

    beforeAll(async () => {
      sourceState = fingerprint(dataDir);
      url = await freshDatabase();
      moved = await runMove(dataDir, url);
    }, 60_000);

    afterAll(async () => {
      await herald?.close();
    });

    it('copies every table, prints the counts and the key, and leaves the folder as it was', () => {
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stderr.split('\n').filter((line) => line && !line.startsWith('  '))).toEqual([]);
      expect(moved.stdout).toMatch(/^sends\s+7\s+7$/m);
      expect(moved.stdout).toMatch(/^channels\s+3\s+3$/m);
      expect(moved.stdout).toMatch(/^schedules\s+1\s+1$/m);
      expect(moved.stdout).toMatch(/^users\s+1\s+1$/m);
      expect(moved.stdout).toMatch(/^delivery_attempts\s+\d+\s+\d+$/m);
      expect(moved.stdout).toContain('the roll-ups equal the source’s');
      expect(moved.stdout).toContain(join(dataDir, KEY_FILE));
      expect(fingerprint(dataDir)).toEqual(sourceState);
    });

    it('prints progress on stderr: each table’s rows done of its total, then a closing line', () => {
      // The report's table (stdout): table, SQLite rows, PostgreSQL rows.
      const counted = [...moved.stdout.matchAll(/^(\w+)\s+(\d+)\s+(\d+)$/gm)].map(
        ([, table, rows]) => [table, Number(rows)] as const,
      );
      expect(counted.length).toBeGreaterThan(10);
      const group = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
      for (const [table, rows] of counted) {
        expect(moved.stderr).toContain(
          `  ${table}: ${group(rows)} / ${group(rows)} rows (100 %)\n`,
        );
      }
      expect(moved.stderr).toMatch(/^ {2}sends: 7 \/ 7 rows \(100 %\)$/m);
      const all = counted.reduce((sum, [, rows]) => sum + rows, 0);
      expect(moved.stderr).toContain(
        `  done, ${counted.length} tables: ${group(all)} / ${group(all)} rows (100 %)\n`,
      );
      // Nothing of it on stdout, which holds the report alone.
      expect(moved.stdout).not.toMatch(/rows \(\d+ %\)/);
    });

    it('refuses to copy again into the database it filled', async () => {
      const again = await runMove(dataDir, url);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('already holds Herald data');
    }, 30_000);

    it('serves the same data from PostgreSQL with the same key, and old tokens still send', async () => {
      // Another process's data folder: it only holds the key.
      const own = mkdtempSync(join(tmpdir(), 'herald-move-pg-'));
      scratch.push(own);
      copyFileSync(join(dataDir, KEY_FILE), join(own, KEY_FILE));
      herald = await startServer({
        databaseUrl: url,
        dataDir: own,
        host: '127.0.0.1',
        port: 0,
        random: () => 0.5,
      });
      client = new ConsoleClient(herald.url);
      await client.ok('POST', '/login', ADMIN);
      expect(await views(client)).toEqual(before);

      const post = (path: string, body: unknown) =>
        fetch(`${herald.url}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      const hooksBefore = peer.received.filter((r) => r.url === '/hook').length;
      const v2 = await post('/api/v2/message/send', {
        token: v2Token,
        title: 'after the move',
        placeholders: { host: 'pg-1', what: 'sent through PostgreSQL' },
      });
      expect(v2.body.code).toBe(200);
      const v1 = await post('/api/v1/message/send', {
        token: v1Token,
        title: 'after the move too',
        text: 'v1 on PostgreSQL',
        mode: 'async',
      });
      expect(v1.body.code).toBe(200);

      // The sealed webhook header opens with the copied key.
      const hooks = await waitFor(() => {
        const arrived = peer.received.filter((r) => r.url === '/hook');
        return arrived.length > hooksBefore && arrived;
      });
      expect(hooks).toHaveLength(hooksBefore + 1);
      expect(hooks[hooksBefore].headers.authorization).toBe('Bearer sealed-in-sqlite');
      expect(String(hooks[hooksBefore].body)).toContain('sent through PostgreSQL');
      const found = await waitFor(async () => {
        const page = await client.ok('GET', '/messages?q=PostgreSQL');
        return page.total === 2 && page;
      });
      expect(found.items.map((m: any) => m.title).sort()).toEqual([
        'after the move',
        'after the move too',
      ]);
      // New rows take ids after the copied ones.
      const logs = await client.ok('GET', '/logs?pageSize=100');
      const oldMax = Math.max(...before.logs.items.map((s: any) => s.id));
      expect(logs.items.filter((s: any) => s.id > oldMax)).toHaveLength(2);
      expect(logs.total).toBe(9);
    }, 60_000);
  });
});
