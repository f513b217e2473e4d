import { createHmac } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';

import { MIGRATION_NAMES, migrate } from '../../../server/db/migrate';
import { ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import {
  createTestDatabase,
  keptDatabases,
  onPostgres,
  openFolderDatabase,
  storedDatabase,
} from '../../helpers/test-database';
import { authenticatorCode } from '../../helpers/totp-code';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * The previous release's data folder, kept in test/fixtures/upgrade/0.1.0-c70a154 (its README
 * says how it was made: that commit's Herald, filled through its HTTP APIs, then stopped), is
 * started by this code: every row comes through with its values, and every secret still opens.
 * On PostgreSQL the same fixture is a pg_dump of that commit's Herald on PostgreSQL.
 */
const FIXTURE = join(
  import.meta.dirname,
  '../../fixtures/upgrade/0.1.0-c70a154',
  onPostgres() ? 'postgres' : 'sqlite',
);
const manifest = JSON.parse(readFileSync(join(FIXTURE, 'manifest.json'), 'utf8'));
const secrets = manifest.fixture.secrets;

/** The migrations that fixture's commit had: the last of them, and none after. */
const FIXTURE_LAST_MIGRATION = '2026-11-29-1000-hosted-insert-lock';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A fresh copy of the fixture: a data folder with its key, and its database. */
async function fixtureFolder(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-upgrade-'));
  cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  copyFileSync(join(FIXTURE, 'secret.key'), join(dataDir, 'secret.key'));
  chmodSync(join(dataDir, 'secret.key'), 0o600); // git keeps no modes but the executable bit
  if (!onPostgres()) {
    copyFileSync(join(FIXTURE, 'herald.db'), join(dataDir, 'herald.db'));
    return dataDir;
  }
  const database = await createTestDatabase();
  keptDatabases.set(dataDir, database);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    // psql's own commands (\restrict, which newer pg_dumps write) are not SQL.
    const sql = readFileSync(join(FIXTURE, 'herald.sql'), 'utf8')
      .split('\n')
      .filter((line) => !line.startsWith('\\'))
      .join('\n');
    await client.query(sql);
  } finally {
    await client.end();
  }
  return dataDir;
}

async function appliedMigrations(dataDir: string): Promise<string[]> {
  const db = await openFolderDatabase(dataDir);
  try {
    const [rows] = await db.sequelize.query('SELECT name FROM schema_migrations ORDER BY name');
    return (rows as Array<{ name: string }>).map((r) => r.name);
  } finally {
    await db.close();
  }
}

/** The Standard Webhooks signature a receiver checks (standardwebhooks.com). */
function webhookSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

describe('upgrading the previous release’s data folder (0.1.0 at c70a154)', () => {
  async function upgraded(): Promise<{
    herald: TestHerald;
    admin: ConsoleClient;
    peer: FixturePeer;
  }> {
    // The fixture's channels deliver to the peer its maker ran: listen where it listened.
    const fixturePeer = await startHttpPeerAt(manifest.peerPort);
    cleanup.push(() => fixturePeer.close());
    const dataDir = await fixtureFolder();
    expect(await appliedMigrations(dataDir)).toEqual(
      MIGRATION_NAMES.slice(0, MIGRATION_NAMES.indexOf(FIXTURE_LAST_MIGRATION) + 1),
    );
    const herald = await startTestHerald({ dataDir, setup: false });
    cleanup.push(() => herald.close());
    const admin = new ConsoleClient(herald.url);
    await admin.ok('POST', '/login', manifest.fixture.admin);
    return { herald, admin, peer: fixturePeer };
  }

  it('migrates forward and keeps every row with its values', async () => {
    const { herald, admin } = await upgraded();
    expect(await appliedMigrations(herald.dataDir)).toEqual([...MIGRATION_NAMES].sort());

    const status = await admin.ok('GET', '/status');
    expect(status.setupRequired).toBe(false);
    expect(status.user.username).toBe('admin');

    const settings = await admin.ok('GET', '/settings');
    expect(settings).toMatchObject(manifest.settings);

    expect((await admin.ok('GET', '/channels')).items).toMatchObject(manifest.channels);
    for (const template of manifest.templates)
      expect(await admin.ok('GET', `/templates/${template.id}`)).toMatchObject(template);
    for (const task of manifest.tasks)
      expect(await admin.ok('GET', `/tasks/${task.id}`)).toMatchObject(task);
    expect((await admin.ok('GET', '/templates?pageSize=100')).total).toBe(
      manifest.templates.length,
    );
    expect((await admin.ok('GET', '/tasks?pageSize=100')).total).toBe(manifest.tasks.length);
    expect((await admin.ok('GET', '/schedules?pageSize=100')).items).toMatchObject(
      manifest.schedules,
    );
    expect((await admin.ok('GET', '/users?pageSize=100')).items).toMatchObject(manifest.users);

    const logs = await admin.ok('GET', '/logs?pageSize=100');
    expect(logs.total).toBe(manifest.logs.length);
    for (const send of manifest.logs)
      expect(await admin.ok('GET', `/logs/${send.id}`)).toMatchObject(send);

    const messages = await admin.ok('GET', '/messages?pageSize=100');
    expect(messages.total).toBe(manifest.messages.length);
    expect(messages.unreadCount).toBe(manifest.messages.filter((m: any) => !m.read).length);
    for (const message of manifest.messages)
      expect(await admin.ok('GET', `/messages/${message.id}`)).toMatchObject(message);
    // The share link made before the upgrade still opens its message without a session.
    const shared = manifest.messages.find((m: any) => m.previewUrl);
    const key = new URL(shared.previewUrl).pathname.split('/').pop();
    const preview = await fetch(`${herald.url}/api/public/preview/${key}`);
    expect(preview.status).toBe(200);
    expect(((await preview.json()) as any).data.title).toBe(shared.title);

    // Sign-ins since the upgrade are added to the audit log; the old entries stay as they were.
    const audit = (await admin.ok('GET', '/audit?pageSize=100')).items;
    for (const entry of manifest.audit)
      expect(audit.find((e: any) => e.id === entry.id)).toMatchObject(entry);

    // Secrets stay sealed at rest, the proxy password an older version kept in clear included
    // (migration 2026-11-30-1000-seal-proxy-credentials).
    const stored = Buffer.concat(await storedDatabase(herald.dataDir));
    for (const secret of Object.values(secrets) as string[])
      expect(stored.includes(secret), secret).toBe(false);
  });

  it('still opens every secret: the old tokens send, the channels sign, the hook and two-factor check', async () => {
    const { herald, admin, peer } = await upgraded();
    const logsBefore = manifest.logs.length;

    // The template token of the old release sends; its instances reach the peer with their
    // sealed header, webhook signature and DingTalk signature.
    const v2 = await herald.sendV2({
      token: manifest.tokens.template,
      title: 'After the upgrade',
      placeholders: { service: 'api' },
    });
    expect(v2.body.code).toBe(200);
    const [a, b] = await peer.waitForRequests(2, 15_000);
    const hook = [a, b].find((r) => r!.url === '/hook')!;
    const robot = [a, b].find((r) => r!.url.startsWith('/robot/send'))!;
    expect(hook.headers['x-token']).toBe(secrets.webhookToken);
    expect(hook.headers['x-plain']).toBe('plain');
    expect(hook.headers['webhook-signature']).toBe(
      webhookSignature(
        secrets.webhookSigning,
        String(hook.headers['webhook-id']),
        String(hook.headers['webhook-timestamp']),
        hook.body,
      ),
    );
    expect(JSON.parse(hook.body).content).toBe('Deploy api to prod');
    const robotUrl = new URL(robot.url, 'http://peer');
    expect(robotUrl.searchParams.get('access_token')).toBe(secrets.dingtalkUrlToken);
    const timestamp = robotUrl.searchParams.get('timestamp')!;
    expect(robotUrl.searchParams.get('sign')).toBe(
      createHmac('sha256', secrets.dingtalkSecret)
        .update(`${timestamp}\n${secrets.dingtalkSecret}`)
        .digest('base64'),
    );

    // The task token (as rotated before the upgrade) sends; the one rotated away does not.
    const v1 = await herald.sendV1({
      token: manifest.tokens.task,
      title: 'V1 after the upgrade',
      text: 'still here',
      mode: 'async',
    });
    expect(v1.body.code).toBe(200);
    const stale = await herald.sendV1({
      token: manifest.tokens.rotatedTask,
      title: 't',
      text: 'x',
    });
    expect(stale.body.code).toBe(401);

    // The template's sealed hook secret still checks a signed hook.
    const body = JSON.stringify({ title: 'Hook after the upgrade', service: 'worker' });
    const signed = (secret: string) =>
      herald.post(`/api/hooks/generic/${manifest.tokens.template}`, body, {
        'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      });
    expect((await signed('not the secret')).status).toBe(401);
    expect((await signed(secrets.hookSecret)).status).toBe(200);

    // New sends take ids after the old ones.
    const logs = (await admin.ok('GET', '/logs?pageSize=100')).items;
    expect(logs).toHaveLength(logsBefore + 3);
    expect(Math.min(...logs.slice(0, 3).map((l: any) => l.id))).toBeGreaterThan(
      Math.max(...manifest.logs.map((l: any) => l.id)),
    );

    // The editor signs in with the old password and a code from the sealed TOTP secret.
    const erin = new ConsoleClient(herald.url);
    const { username, secret } = manifest.twoFactor;
    const password = manifest.fixture.editor.password;
    expect((await erin.post('/login', { username, password })).body.data).toMatchObject({
      twoFactorRequired: true,
    });
    const code = authenticatorCode(secret, Date.now());
    expect((await erin.ok('POST', '/login', { username, password, code })).user.username).toBe(
      username,
    );
  });

  it('is refused by an older Herald afterwards, which names the migration it needs', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-newer-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    // A database one migration ahead of this code: what this code is to the next release.
    const db = await openFolderDatabase(dataDir);
    try {
      await migrate(db.sequelize);
      await db.sequelize.query(
        "INSERT INTO schema_migrations (name) VALUES ('2099-01-01-0000-from-a-newer-herald')",
      );
    } finally {
      await db.close();
    }
    await expect(startTestHerald({ dataDir, setup: false })).rejects.toThrow(
      /upgraded by a newer Herald: it has migration 2099-01-01-0000-from-a-newer-herald.*includes migration 2099-01-01-0000-from-a-newer-herald/,
    );
    // Refused before anything ran: the database is as it was.
    expect(await appliedMigrations(dataDir)).toEqual(
      [...MIGRATION_NAMES, '2099-01-01-0000-from-a-newer-herald'].sort(),
    );
  });
});

interface FixturePeer {
  received: Array<{ url: string; headers: Record<string, unknown>; body: string }>;
  waitForRequests(n: number, timeoutMs?: number): Promise<FixturePeer['received']>;
  close(): Promise<void>;
}

/**
 * A recording peer on a given port: the fixture's channels name the port of the peer its maker
 * ran, and their URLs (DingTalk's is a sealed secret) cannot be pointed elsewhere.
 */
async function startHttpPeerAt(port: number): Promise<FixturePeer> {
  const { createServer } = await import('node:http');
  const received: FixturePeer['received'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body });
      res.setHeader('Content-Type', 'application/json');
      res.end(req.url?.startsWith('/robot/') ? '{"errcode":0,"errmsg":"ok"}' : '{"ok":true}');
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', (err) =>
      fail(new Error(`the fixture's peer port ${port} is taken on this machine: ${String(err)}`)),
    );
    server.listen(port, '127.0.0.1', ok);
  });
  return {
    received,
    async waitForRequests(n: number, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`waited for ${n} requests, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
