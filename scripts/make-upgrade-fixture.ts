/**
 * Makes the upgrade fixture: a data folder written by an earlier Herald (a commit of this
 * repository), kept in test/fixtures/upgrade/ for test/integration/start/upgrade-from-fixture.test.ts.
 *
 *   npx tsx scripts/make-upgrade-fixture.ts [--commit c70a154] [--out DIR]
 *       [--postgres-url postgres://postgres@127.0.0.1:5432/postgres]
 *
 * It checks the commit out in a temporary git worktree (this checkout's node_modules linked in),
 * runs that commit's headless Herald (server/cli.ts under tsx) on a fresh data folder, fills it
 * through the HTTP APIs only (channels of several kinds with secrets, templates, tasks, tokens,
 * sends with delivery logs, hosted messages with read state and a share link, schedules, a hook,
 * users with two-factor, settings; the audit log records itself), stops it with SIGTERM, and
 * keeps in DIR/sqlite: herald.db, secret.key and manifest.json (what the old Herald answered).
 * With --postgres-url it does the same on a fresh PostgreSQL database of that server and keeps
 * DIR/postgres/herald.sql (pg_dump --inserts, loadable without psql) instead of herald.db.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import pg from 'pg';

import { authenticatorCode } from '../test/helpers/totp-code';

/* eslint-disable @typescript-eslint/no-explicit-any -- the old Herald's answers are loose JSON */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const { values: args } = parseArgs({
  options: {
    commit: { type: 'string', default: 'c70a154' },
    out: { type: 'string' },
    'postgres-url': { type: 'string' },
  },
});
const commit = execFileSync('git', ['rev-parse', '--short', args.commit!], { cwd: ROOT })
  .toString()
  .trim();
const outDir = resolve(args.out ?? join(ROOT, 'test/fixtures/upgrade', `0.1.0-${commit}`));

/** What the fixture's people sign in with, and the secrets it stores sealed. */
const FIXTURE = {
  admin: { username: 'admin', password: 'upgrade-admin-pa55' },
  editor: { username: 'erin', password: 'upgrade-editor-pa55' },
  viewer: { username: 'vic' },
  secrets: {
    webhookToken: 'tok-s3cret-1',
    webhookSigning: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    dingtalkSecret: 'SECdingtalk-s3cret',
    dingtalkUrlToken: 'dt-access-1',
    smtpPassword: 'smtp-pa55',
    proxyPassword: 'pr0xy-pa55',
    hookSecret: 'hook-s3cret-1',
  },
} as const;

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

/** A loopback peer: answers the webhooks 200 and DingTalk's robot with errcode 0. */
async function startPeer(): Promise<{ server: Server; port: number; received: any[] }> {
  const received: any[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.setHeader('Content-Type', 'application/json');
      res.end(req.url?.startsWith('/robot/') ? '{"errcode":0,"errmsg":"ok"}' : '{"ok":true}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, port: (server.address() as { port: number }).port, received };
}

class Client {
  cookie = '';
  constructor(readonly base: string) {}
  async call(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...(this.cookie ? { Cookie: this.cookie } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0]!;
    const answer = (await res.json()) as any;
    if (answer.code !== 200) throw new Error(`${method} ${path} → ${JSON.stringify(answer)}`);
    return answer.data;
  }
  ok(method: string, path: string, body?: unknown): Promise<any> {
    return this.call(method, `/api/console${path}`, body);
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>): Promise<T> {
  const until = Date.now() + 60_000;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Fills the old Herald through its APIs; answers what it answered back, for the manifest. */
async function populate(base: string, peerPort: number, deadPort: number): Promise<any> {
  const admin = new Client(base);
  await admin.ok('POST', '/login', FIXTURE.admin);
  const s = FIXTURE.secrets;

  // Retention 0 keeps everything forever: the test runs long after the fixture's dates.
  await admin.ok('PUT', '/settings', {
    retry: { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 200, jitter: 0 },
    retention: { sendsDays: 0, messagesDays: 0, auditDays: 0 },
    publicBaseUrl: 'https://herald.example.com',
    rateLimitPerMinute: 600,
    showRemoteImages: true,
    v1WaitMs: 5000,
  });

  const channel = (name: string, type: string, config: Record<string, unknown>) =>
    admin.ok('POST', '/channels', { name, type, config, description: `${name} (fixture)` });
  const inbox = await channel('Inbox', 'hosted', {});
  const hook = await channel('Ops webhook', 'webhook', {
    url: `http://127.0.0.1:${peerPort}/hook`,
    headers: { 'X-Plain': 'plain' },
    secretHeaders: { 'X-Token': s.webhookToken },
    signingSecret: s.webhookSigning,
  });
  const dead = await channel('Dead webhook', 'webhook', {
    url: `http://127.0.0.1:${deadPort}/down`,
  });
  await channel('Proxied webhook', 'webhook', {
    url: 'https://hooks.example.invalid/x',
    proxy: `http://alice:${s.proxyPassword}@127.0.0.1:9/`,
  });
  const robot = await channel('DingTalk robot', 'dingtalk', {
    webhookUrl: `http://127.0.0.1:${peerPort}/robot/send?access_token=${s.dingtalkUrlToken}`,
    secret: s.dingtalkSecret,
  });
  const mail = await channel('Mail', 'email', {
    host: 'smtp.example.invalid',
    port: 465,
    secure: 'tls',
    username: 'mailer',
    password: s.smtpPassword,
    from: 'herald@example.com',
    fromName: 'Herald',
  });

  const deploy = await admin.ok('POST', '/templates', {
    name: 'Deploy',
    description: 'deploys',
    placeholders: [
      { key: 'service', label: 'Service' },
      { key: 'env', label: 'Environment', default: 'prod' },
    ],
    text: 'Deploy {{service}} to {{env}}',
    markdown: '**Deploy** {{service}} to {{env}}',
    hookSecret: s.hookSecret,
  });
  for (const inst of [
    { channelId: inbox.id, contentType: 'markdown' },
    { channelId: hook.id, contentType: 'text' },
    { channelId: robot.id, contentType: 'markdown' },
  ])
    await admin.ok('POST', `/templates/${deploy.id}/instances`, inst);
  await admin.ok('POST', '/templates', { name: 'Quiet', text: 'quiet {{x}}', enabled: false });

  const nightly = await admin.ok('POST', '/tasks', { name: 'Nightly' });
  for (const inst of [
    { channelId: inbox.id, contentType: 'text' },
    { channelId: hook.id, contentType: 'text' },
    { channelId: dead.id, contentType: 'text' },
  ])
    await admin.ok('POST', `/tasks/${nightly.id}/instances`, inst);
  const mailTask = await admin.ok('POST', '/tasks', { name: 'Mail task' });
  await admin.ok('POST', `/tasks/${mailTask.id}/instances`, {
    channelId: mail.id,
    contentType: 'html',
    recipient: 'ops@example.com',
  });

  const templateToken = (await admin.ok('GET', `/templates/${deploy.id}/token`)).token;
  const rotatedTaskToken = (await admin.ok('GET', `/tasks/${nightly.id}/token`)).token;
  const taskToken = (await admin.ok('POST', `/tasks/${nightly.id}/token/rotate`)).token;

  const v2 = (body: Record<string, unknown>) =>
    admin.call('POST', '/api/v2/message/send', { token: templateToken, ...body });
  await v2({ title: 'Deploy api', placeholders: { service: 'api' } });
  await v2({
    title: 'Deploy db',
    placeholders: { service: 'db', env: 'staging' },
    priority: 5,
    url: 'https://ci.example.com/run/7',
    dedupKey: 'deploy-db',
  });
  await admin.call('POST', '/api/v1/message/send', {
    token: taskToken,
    title: 'Nightly report',
    text: 'All 42 jobs done',
    mode: 'async',
  });
  // A signed inbound hook (X-Hub-Signature-256 over the body as sent).
  const hookBody = JSON.stringify({ title: 'Hooked deploy', service: 'worker', env: 'qa' });
  const hookRes = await fetch(`${base}/api/hooks/generic/${templateToken}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Hub-Signature-256': `sha256=${createHmac('sha256', s.hookSecret).update(hookBody).digest('hex')}`,
    },
    body: hookBody,
  });
  if (hookRes.status !== 200) throw new Error(`hook → ${hookRes.status} ${await hookRes.text()}`);

  const cron = await admin.ok('POST', '/schedules', {
    name: 'Weekday deploy digest',
    templateId: deploy.id,
    cron: '0 9 * * 1-5',
    timezone: 'Asia/Shanghai',
    title: 'Digest',
    placeholders: { service: 'digest' },
    enabled: false,
    catchUp: 'skip',
  });
  await admin.ok('POST', `/schedules/${cron.id}/run`);
  await admin.ok('POST', '/schedules', {
    name: 'New year',
    taskId: nightly.id,
    runAt: '2099-01-01T09:00:00+08:00',
    timezone: 'Asia/Shanghai',
    title: 'Happy new year',
    text: 'from the fixture',
  });

  // Every delivery settles (sent, or failed after its two attempts) before the stop.
  const finished = (d: any) => d.status === 'sent' || d.status === 'failed';
  await waitFor('every delivery to settle', async () => {
    const logs = await admin.ok('GET', '/logs?pageSize=100');
    for (const send of logs.items) {
      const detail = await admin.ok('GET', `/logs/${send.id}`);
      if (!detail.deliveries.every(finished)) return false;
    }
    return logs.items.length === 5;
  });

  const messages = (await admin.ok('GET', '/messages?pageSize=100')).items;
  const oldest = messages[messages.length - 1];
  await admin.ok('PATCH', `/messages/${oldest.id}`, { read: true });
  await admin.ok('POST', `/messages/${messages[0].id}/link`);

  const editor = await admin.ok('POST', '/users', { ...FIXTURE.editor, role: 'editor' });
  await admin.ok('POST', '/users', { username: FIXTURE.viewer.username, role: 'viewer' });
  const erin = new Client(base);
  await erin.ok('POST', '/login', FIXTURE.editor);
  const { secret: totpSecret } = await erin.ok('POST', '/account/two-factor/setup');
  const { recoveryCodes } = await erin.ok('POST', '/account/two-factor/enable', {
    code: authenticatorCode(totpSecret, Date.now()),
  });

  const logs = (await admin.ok('GET', '/logs?pageSize=100')).items;
  const settings = await admin.ok('GET', '/settings');
  delete settings.about;
  return {
    peerPort,
    deadPort,
    tokens: { template: templateToken, task: taskToken, rotatedTask: rotatedTaskToken },
    twoFactor: { username: editor.username, secret: totpSecret, recoveryCodes },
    settings,
    channels: (await admin.ok('GET', '/channels')).items,
    templates: await Promise.all(
      (await admin.ok('GET', '/templates?pageSize=100')).items.map((t: any) =>
        admin.ok('GET', `/templates/${t.id}`),
      ),
    ),
    tasks: await Promise.all(
      (await admin.ok('GET', '/tasks?pageSize=100')).items.map((t: any) =>
        admin.ok('GET', `/tasks/${t.id}`),
      ),
    ),
    schedules: (await admin.ok('GET', '/schedules?pageSize=100')).items,
    users: (await admin.ok('GET', '/users?pageSize=100')).items,
    logs: await Promise.all(logs.map((l: any) => admin.ok('GET', `/logs/${l.id}`))),
    messages: await Promise.all(
      (await admin.ok('GET', '/messages?pageSize=100')).items.map((m: any) =>
        admin.ok('GET', `/messages/${m.id}`),
      ),
    ),
    audit: (await admin.ok('GET', '/audit?pageSize=100')).items,
  };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((ok) => {
    child.once('exit', (code) => ok(code));
    child.kill('SIGTERM');
  });
}

async function makeOne(worktree: string, postgresUrl: string | undefined): Promise<void> {
  const dialect = postgresUrl ? 'postgres' : 'sqlite';
  const dataDir = mkdtempSync(join(tmpdir(), `herald-upgrade-fixture-${dialect}-`));
  let database: { name: string; url: string } | undefined;
  if (postgresUrl) {
    const name = `herald_upgrade_fixture_${randomBytes(4).toString('hex')}`;
    const adminDb = new pg.Client({ connectionString: postgresUrl });
    await adminDb.connect();
    await adminDb.query(`CREATE DATABASE ${name}`);
    await adminDb.end();
    const url = new URL(postgresUrl);
    url.pathname = `/${name}`;
    database = { name, url: url.toString() };
  }
  const peer = await startPeer();
  const port = await freePort();
  const deadPort = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'server/cli.ts', '--port', String(port), '--data-dir', dataDir],
    {
      cwd: worktree,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        HERALD_ADMIN_USER: FIXTURE.admin.username,
        HERALD_ADMIN_PASSWORD: FIXTURE.admin.password,
        HERALD_LOG: 'warn',
        ...(database ? { HERALD_DATABASE_URL: database.url } : {}),
      },
    },
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor('the old Herald to answer', async () => (await fetch(`${base}/healthz`)).ok);
    const manifest = await populate(base, peer.port, deadPort);
    const status = await new Client(base).ok('GET', '/status');
    const code = await stop(child);
    if (code !== 0) throw new Error(`the old Herald exited with ${code}`);
    const target = join(outDir, dialect);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    copyFileSync(join(dataDir, 'secret.key'), join(target, 'secret.key'));
    if (database) {
      // --inserts: plain INSERT statements, so a test loads the file through the pg client.
      execFileSync('pg_dump', [
        '--inserts',
        '--no-owner',
        '--no-privileges',
        `--file=${join(target, 'herald.sql')}`,
        database.url,
      ]);
    } else {
      if (existsSync(join(dataDir, 'herald.db-wal')))
        throw new Error('the old Herald left a -wal file: it did not close cleanly');
      copyFileSync(join(dataDir, 'herald.db'), join(target, 'herald.db'));
    }
    writeFileSync(
      join(target, 'manifest.json'),
      `${JSON.stringify({ commit, version: status.version, dialect, fixture: FIXTURE, peerRequests: peer.received.length, ...manifest }, null, 2)}\n`,
    );
    console.log(`wrote ${target}`);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    peer.server.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (database && postgresUrl) {
      const adminDb = new pg.Client({ connectionString: postgresUrl });
      await adminDb.connect();
      await adminDb.query(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
      await adminDb.end();
    }
  }
}

async function main(): Promise<void> {
  const worktree = mkdtempSync(join(tmpdir(), 'herald-prev-'));
  rmSync(worktree, { recursive: true });
  execFileSync('git', ['worktree', 'add', '--detach', worktree, commit], { cwd: ROOT });
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(worktree, 'node_modules'));
    await makeOne(worktree, undefined);
    if (args['postgres-url']) await makeOne(worktree, args['postgres-url']);
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT });
  }
}

await main();
