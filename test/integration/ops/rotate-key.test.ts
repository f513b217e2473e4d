import { spawn } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { FINGERPRINT_SETTING, keyFingerprint } from '../../../server/crypto/key-fingerprint';
import { takePostgresProcessLock } from '../../../server/features/key-rotation/postgres-process-lock';
import { SecretBox } from '../../../server/crypto/secret-box';
import { KEY_FILE, tokenPart } from '../../../server/crypto/server-key';
import { ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { heraldArgs } from '../../helpers/herald-bin';
import { startHttpPeer, type HttpPeer, type ReceivedRequest } from '../../helpers/recording-peer';
import { keptDatabases, onPostgres, openFolderDatabase } from '../../helpers/test-database';
import { authenticatorCode } from '../../helpers/totp-code';

const root = join(import.meta.dirname, '..', '..', '..');

/**
 * `herald rotate-key` run as a user runs it: the built bin in a process of its own, on a real
 * install (SQLite, or PostgreSQL with HERALD_TEST_DATABASE=postgres), then Herald started again
 * on the folder to show every secret still opens: the channel's signing secret (the loopback
 * receiver verifies it), the hook secret (a signed hook is accepted), two-factor (a code signs
 * in) and the tokens scripts hold.
 */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The folder's PostgreSQL database, as the Heralds started on it use it. */
const databaseUrlOf = (dataDir: string) => keptDatabases.get(dataDir)?.url;

function rotateKey(dataDir: string, args: string[] = [], env: Record<string, string> = {}) {
  const url = databaseUrlOf(dataDir);
  return herald(['rotate-key', '--data-dir', dataDir, ...args], {
    ...(url ? { HERALD_DATABASE_URL: url } : {}),
    ...env,
  });
}

/** The built bin with `args`, in an environment without the key and database variables. */
function herald(args: string[], env: Record<string, string> = {}) {
  const base = { ...process.env };
  for (const name of [
    'HERALD_SECRET_KEY',
    'HERALD_SECRET_KEY_FILE',
    'HERALD_DATABASE_URL',
    'HERALD_DATABASE_URL_FILE',
    'HERALD_DATA_DIR',
  ]) {
    delete base[name];
  }
  const child = spawn(process.execPath, heraldArgs(args), {
    cwd: root,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<Run>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

/** The check a receiver runs on a signed delivery (docs/security.md). */
function signedWith(secret: string, req: ReceivedRequest): boolean {
  const id = req.headers['webhook-id'];
  const timestamp = req.headers['webhook-timestamp'];
  const signature = req.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') {
    return false;
  }
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${req.body}`).digest();
  return signature.split(' ').some((entry) => {
    const given = Buffer.from(entry.split(',')[1] ?? '', 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const hubSignature = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

interface Install {
  dataDir: string;
  channelId: number;
  channelSecret: string;
  templateId: number;
  taskId: number;
  hookSecret: string;
  templateToken: string;
  taskToken: string;
  /** A teammate with two-factor on. */
  totp: { username: string; password: string; secret: string };
  /** A teammate whose two-factor is being set up (the secret sealed apart), and its session. */
  pending: { secret: string; cookie: string };
}

/** A real install with one of every sealed secret, made through the console API and closed. */
async function makeInstall(
  dataDir: string,
  peer: HttpPeer,
  opts: { secretKey?: string } = {},
): Promise<Install> {
  const herald = await startTestHerald({ dataDir, secretKey: opts.secretKey });
  try {
    const channelSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const channel = await herald.createChannel('webhook', {
      url: peer.url,
      signingSecret: channelSecret,
    });
    const hookSecret = `hook secret ${randomBytes(8).toString('hex')}`;
    const { template, token: templateToken } = await herald.createTemplate(
      {
        text: 'env={{deploy.env}}',
        placeholders: [{ key: 'deploy.env', label: 'env' }],
        hookSecret,
      },
      [{ channelId: channel.id, contentType: 'text' }],
    );
    const { task, token: taskToken } = await herald.createTask('rotation task', [
      { channelId: channel.id, contentType: 'text' },
    ]);

    const on = await herald.signedInAs('editor');
    const { secret } = await on.client.ok('POST', '/account/two-factor/setup');
    await on.client.ok('POST', '/account/two-factor/enable', {
      code: authenticatorCode(secret, Date.now()),
    });
    const setting = await herald.signedInAs('editor');
    const pending = await setting.client.ok('POST', '/account/two-factor/setup');
    return {
      dataDir,
      channelId: channel.id,
      channelSecret,
      templateId: template.id,
      taskId: task.id,
      hookSecret,
      templateToken,
      taskToken,
      totp: { username: on.user.username, password: on.password, secret },
      pending: { secret: pending.secret, cookie: setting.client.cookie },
    };
  } finally {
    await herald.close();
  }
}

/** Sends through the template's token and waits for the receiver to verify the delivery. */
async function deliversSigned(herald: TestHerald, peer: HttpPeer, install: Install, token: string) {
  const before = peer.received.length;
  const title = `after rotation ${randomBytes(4).toString('hex')}`;
  const sent = await herald.sendV2({ token, title, placeholders: { 'deploy.env': 'prod' } });
  expect(sent.body).toMatchObject({ code: 200 });
  const [req] = (await peer.waitForRequests(before + 1)).slice(before);
  expect(JSON.parse(req!.body)).toMatchObject({ title, content: 'env=prod' });
  expect(signedWith(install.channelSecret, req!)).toBe(true);
}

/** Every secret of the install still opens, and the given tokens send. */
async function everySecretWorks(
  herald: TestHerald,
  peer: HttpPeer,
  install: Install,
  tokens = { template: install.templateToken, task: install.taskToken },
) {
  await deliversSigned(herald, peer, install, tokens.template);

  const v1 = await herald.sendV1({ token: tokens.task, title: 'task', text: 'by the task token' });
  expect(v1.body).toMatchObject({ code: 200 });

  const body = JSON.stringify({ title: 'hooked', deploy: { env: 'staging' } });
  const path = `/api/hooks/generic/${tokens.template}`;
  const good = await herald.post(path, body, {
    'X-Hub-Signature-256': hubSignature(install.hookSecret, body),
  });
  expect(good.body).toMatchObject({ code: 200 });
  const forged = await herald.post(path, body, {
    'X-Hub-Signature-256': hubSignature('not the hook secret', body),
  });
  expect(forged.status).toBe(401);

  // The next step's code: the step used at enrolment is spent.
  const signIn = await new ConsoleClient(herald.url).post('/login', {
    username: install.totp.username,
    password: install.totp.password,
    code: authenticatorCode(install.totp.secret, Date.now() + 30_000),
  });
  expect(signIn.body).toMatchObject({ code: 200 });

  const setting = new ConsoleClient(herald.url);
  setting.cookie = install.pending.cookie;
  const enabled = await setting.post('/account/two-factor/enable', {
    code: authenticatorCode(install.pending.secret, Date.now()),
  });
  expect(enabled.body).toMatchObject({ code: 200 });
}

/** The sealed values at rest, read with Herald stopped. */
async function sealedAtRest(dataDir: string): Promise<string[]> {
  const db = await openFolderDatabase(dataDir);
  try {
    const rows = await db.read.all<{ v: unknown }>(
      `SELECT CAST(config AS TEXT) AS v FROM channels
       UNION ALL SELECT hook_secret FROM templates
       UNION ALL SELECT totp_secret FROM users UNION ALL SELECT totp_pending FROM users
       UNION ALL SELECT CAST(value AS TEXT) FROM settings`,
    );
    return rows
      .flatMap((r) => (typeof r.v === 'string' ? (r.v.match(/enc:v1:[A-Za-z0-9+/=]+/g) ?? []) : []))
      .sort();
  } finally {
    await db.close();
  }
}

const opens = (key: Buffer, sealed: string) => {
  try {
    new SecretBox(key).open(sealed);
    return true;
  } catch {
    return false;
  }
};

const keyIn = (file: string) => Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
const keptKeys = (dataDir: string) =>
  readdirSync(dataDir).filter((f) => /^secret\.key\.\d{4}-\d\d-\d\dT[\d-]+Z$/.test(f));
const modeOf = (file: string) => statSync(file).mode & 0o777;

describe('herald rotate-key', () => {
  let peer: HttpPeer;
  const folders: string[] = [];
  const newFolder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-rotate-'));
    folders.push(dir);
    return dir;
  };

  beforeAll(async () => {
    peer = await startHttpPeer();
  });
  afterAll(() => peer.close());
  afterEach(() => {
    for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('re-seals every secret under a new key, keeps the old key beside it, and every token keeps working', async () => {
    const dataDir = newFolder();
    const install = await makeInstall(dataDir, peer);
    const keyFile = join(dataDir, KEY_FILE);
    const oldText = readFileSync(keyFile, 'utf8');
    const oldKey = keyIn(keyFile);
    const before = await sealedAtRest(dataDir);
    // Channel secret, hook secret, two-factor secret, one being set up, the VAPID private key.
    expect(before.length).toBeGreaterThanOrEqual(5);

    const run = await rotateKey(dataDir);
    expect(run.stderr).toBe('');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /Re-sealed: 1 channel secret, 1 hook secret, \d+ two-factor secrets?, 1 two-factor secret being set up, 1 sealed setting\./,
    );
    expect(run.stdout).toContain('Tokens: kept.');

    // The old key, byte for byte, beside the new one, both owner-only.
    const [kept] = keptKeys(dataDir);
    expect(kept).toBeDefined();
    expect(readFileSync(join(dataDir, kept!), 'utf8')).toBe(oldText);
    expect(run.stdout).toContain(join(dataDir, kept!));
    expect(modeOf(join(dataDir, kept!))).toBe(0o600);
    expect(modeOf(keyFile)).toBe(0o600);
    expect(existsSync(`${keyFile}.new`)).toBe(false);
    // The new key file: a new sealing key, the old token key.
    const newKey = keyIn(keyFile);
    expect(newKey.length).toBe(64);
    expect(tokenPart(newKey).equals(oldKey)).toBe(true);

    const after = await sealedAtRest(dataDir);
    expect(after).toHaveLength(before.length);
    for (const sealed of after) {
      expect(opens(newKey, sealed)).toBe(true);
      expect(opens(oldKey, sealed)).toBe(false);
    }

    const herald = await startTestHerald({ dataDir });
    try {
      await everySecretWorks(herald, peer, install);
      // The console shows the tokens scripts already hold.
      const shown = await herald.console.ok('GET', `/templates/${install.templateId}/token`);
      expect(shown.token).toBe(install.templateToken);
    } finally {
      await herald.close();
    }

    // A key that was rotated once rotates again, still keeping the tokens.
    const again = await rotateKey(dataDir);
    expect(again.code, again.stderr).toBe(0);
    expect(keyIn(keyFile).equals(newKey)).toBe(false);
    expect(tokenPart(keyIn(keyFile)).equals(oldKey)).toBe(true);
    expect(keptKeys(dataDir)).toHaveLength(2);
    const third = await startTestHerald({ dataDir });
    try {
      await deliversSigned(third, peer, install, install.templateToken);
    } finally {
      await third.close();
    }
  }, 120_000);

  it('--tokens replaces the token key too: the old tokens are refused, the console shows new ones that work', async () => {
    const dataDir = newFolder();
    const install = await makeInstall(dataDir, peer);
    const keyFile = join(dataDir, KEY_FILE);
    const oldKey = keyIn(keyFile);

    const run = await rotateKey(dataDir, ['--tokens']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Tokens: replaced.');
    const newKey = keyIn(keyFile);
    expect(newKey.length).toBe(32);
    expect(newKey.equals(oldKey)).toBe(false);
    expect(keptKeys(dataDir)).toHaveLength(1);

    const herald = await startTestHerald({ dataDir });
    try {
      const oldV2 = await herald.sendV2({ token: install.templateToken, title: 'old token' });
      expect(oldV2.body).toMatchObject({
        code: 400,
        msg: expect.stringContaining('does not authenticate'),
      });
      const oldV1 = await herald.sendV1({ token: install.taskToken, title: 'old', text: 'old' });
      expect(oldV1.body).toMatchObject({
        code: 401,
        msg: expect.stringContaining('does not authenticate'),
      });

      const template = (await herald.console.ok('GET', `/templates/${install.templateId}/token`))
        .token as string;
      const task = (await herald.console.ok('GET', `/tasks/${install.taskId}/token`))
        .token as string;
      expect(template).not.toBe(install.templateToken);
      expect(task).not.toBe(install.taskToken);
      await everySecretWorks(herald, peer, install, { template, task });
    } finally {
      await herald.close();
    }
  }, 120_000);

  it('refuses while a Herald runs on the folder, and changes nothing', async () => {
    const dataDir = newFolder();
    const install = await makeInstall(dataDir, peer);
    const keyFile = join(dataDir, KEY_FILE);
    const keyText = readFileSync(keyFile, 'utf8');
    const before = await sealedAtRest(dataDir);

    const herald = await startTestHerald({ dataDir });
    try {
      const run = await rotateKey(dataDir);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`Herald is running on ${dataDir} (pid ${process.pid})`);
      expect(run.stderr).toContain('Nothing was changed.');
      expect(readFileSync(keyFile, 'utf8')).toBe(keyText);
      expect(keptKeys(dataDir)).toEqual([]);
      expect(existsSync(`${keyFile}.new`)).toBe(false);
      // The running Herald still holds its folder and still works.
      await deliversSigned(herald, peer, install, install.templateToken);
    } finally {
      await herald.close();
    }
    expect(await sealedAtRest(dataDir)).toEqual(before);
  }, 120_000);

  it.runIf(onPostgres())(
    'on PostgreSQL, refuses while a Herald of another data folder runs on the database',
    async () => {
      const dataDir = newFolder();
      await makeInstall(dataDir, peer);
      const keyText = readFileSync(join(dataDir, KEY_FILE), 'utf8');
      const otherFolder = newFolder();
      const other = await startTestHerald({
        dataDir: otherFolder,
        databaseUrl: databaseUrlOf(dataDir),
        secretKey: `base64:${keyText}`,
      });
      try {
        const run = await rotateKey(dataDir);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          /A Herald process is running on postgres:\/\/.*Nothing was changed\./s,
        );
        expect(readFileSync(join(dataDir, KEY_FILE), 'utf8')).toBe(keyText);
        expect(keptKeys(dataDir)).toEqual([]);
      } finally {
        await other.close();
      }
    },
    120_000,
  );

  it.runIf(onPostgres())(
    'on PostgreSQL, a Herald that started while a rotation held the lock refuses the new key before it delivers',
    async () => {
      const dataDir = newFolder();
      await makeInstall(dataDir, peer);
      const url = databaseUrlOf(dataDir)!;
      // What rotate-key holds while it re-seals: the processes' lock, taken exclusively.
      const rotation = await takePostgresProcessLock(url);
      expect(rotation).not.toBeNull();
      const watcher = new pg.Client({ connectionString: url });
      await watcher.connect();
      try {
        // This start reads the fingerprint (unchanged yet) and then waits to join the others.
        const starting = startTestHerald({ dataDir });
        starting.catch(() => {});
        await expect
          .poll(
            async () =>
              (
                await watcher.query<{ waiting: string }>(
                  'SELECT count(*) AS waiting FROM pg_locks l JOIN pg_database d ON d.oid = l.database ' +
                    "WHERE d.datname = current_database() AND l.locktype = 'advisory' AND NOT l.granted",
                )
              ).rows[0].waiting,
            { timeout: 60_000 },
          )
          .toBe('1');
        // The rotation commits: the database's fingerprint is now another key's.
        await watcher.query('UPDATE settings SET value = $1 WHERE key = $2', [
          JSON.stringify({ fingerprint: keyFingerprint(randomBytes(32)) }),
          FINGERPRINT_SETTING,
        ]);
        await rotation!.release();
        await expect(starting).rejects.toThrow(/does not match the key this database/);
      } finally {
        await rotation?.release().catch(() => {});
        await watcher.end();
      }
    },
    120_000,
  );

  it('a failure inside the transaction leaves the database and the key as they were', async () => {
    const dataDir = newFolder();
    const install = await makeInstall(dataDir, peer);
    const keyFile = join(dataDir, KEY_FILE);
    const keyText = readFileSync(keyFile, 'utf8');
    const before = await sealedAtRest(dataDir);

    // Channels and templates are re-sealed first; the users' update then fails.
    const db = await openFolderDatabase(dataDir);
    try {
      await db.writer.run(({ sql }) =>
        onPostgres()
          ? sql.exec(`CREATE FUNCTION refuse_update() RETURNS trigger AS $$
                 BEGIN RAISE EXCEPTION 'injected failure'; END $$ LANGUAGE plpgsql;
               CREATE TRIGGER refuse BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION refuse_update();`)
          : sql.exec(`CREATE TRIGGER refuse BEFORE UPDATE ON users
               BEGIN SELECT RAISE(ABORT, 'injected failure'); END;`),
      );
    } finally {
      await db.close();
    }

    const run = await rotateKey(dataDir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('injected failure');
    expect(run.stderr).toContain('Nothing was changed');
    expect(readFileSync(keyFile, 'utf8')).toBe(keyText);
    expect(existsSync(`${keyFile}.new`)).toBe(false);
    expect(keptKeys(dataDir)).toEqual([]);
    // The channel and the template were updated before the failure: rolled back with it.
    expect(await sealedAtRest(dataDir)).toEqual(before);

    const cleanup = await openFolderDatabase(dataDir);
    try {
      await cleanup.writer.run(({ sql }) =>
        sql.exec('DROP TRIGGER refuse' + (onPostgres() ? ' ON users' : '')),
      );
    } finally {
      await cleanup.close();
    }
    const herald = await startTestHerald({ dataDir });
    try {
      await everySecretWorks(herald, peer, install);
    } finally {
      await herald.close();
    }
  }, 120_000);

  // herald backup and restore work on the SQLite file (PostgreSQL has pg_dump).
  it.skipIf(onPostgres())(
    'a backup made after the rotation carries the new key, and its restore opens every secret',
    async () => {
      const dataDir = newFolder();
      const install = await makeInstall(dataDir, peer);
      expect((await rotateKey(dataDir)).code).toBe(0);
      const file = join(newFolder(), 'after.herald-backup');
      const backup = await herald(['backup', '--out', file, '--data-dir', dataDir]);
      expect(backup.code, backup.stderr).toBe(0);
      const restored = join(newFolder(), 'restored');
      const restore = await herald(['restore', file, '--data-dir', restored]);
      expect(restore.code, restore.stderr).toBe(0);
      expect(keyIn(join(restored, KEY_FILE)).equals(keyIn(join(dataDir, KEY_FILE)))).toBe(true);

      const there = await startTestHerald({ dataDir: restored });
      try {
        await everySecretWorks(there, peer, install);
      } finally {
        await there.close();
      }
    },
    120_000,
  );

  it('a rotation cut off after its commit is finished by the next run', async () => {
    const dataDir = newFolder();
    const install = await makeInstall(dataDir, peer);
    const keyFile = join(dataDir, KEY_FILE);
    expect((await rotateKey(dataDir)).code).toBe(0);
    // What a crash between the commit and the rename leaves: the old key still in place, the
    // new one (the database's) waiting beside it.
    const [kept] = keptKeys(dataDir);
    renameSync(keyFile, `${keyFile}.new`);
    renameSync(join(dataDir, kept!), keyFile);
    await expect(startTestHerald({ dataDir })).rejects.toThrow(/does not match the key/);

    const run = await rotateKey(dataDir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('was cut off before its key file was put in place');
    expect(existsSync(`${keyFile}.new`)).toBe(false);
    expect(keptKeys(dataDir)).toHaveLength(1);
    const herald = await startTestHerald({ dataDir });
    try {
      await deliversSigned(herald, peer, install, install.templateToken);
    } finally {
      await herald.close();
    }
  }, 120_000);

  it('with the key in HERALD_SECRET_KEY, writes the new key to the folder and says what to set', async () => {
    const dataDir = newFolder();
    const passphrase = 'the team passphrase of this test';
    const install = await makeInstall(dataDir, peer, { secretKey: passphrase });
    const keyFile = join(dataDir, KEY_FILE);
    expect(existsSync(keyFile)).toBe(false);

    const run = await rotateKey(dataDir, [], { HERALD_SECRET_KEY: passphrase });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`unset HERALD_SECRET_KEY: Herald then reads ${keyFile}`);
    expect(run.stdout).toContain(`set HERALD_SECRET_KEY="base64:$(cat ${keyFile})"`);
    expect(modeOf(keyFile)).toBe(0o600);
    // The passphrase is not written anywhere.
    expect(keptKeys(dataDir)).toEqual([]);

    await expect(startTestHerald({ dataDir, secretKey: passphrase })).rejects.toThrow(
      /does not match the key/,
    );
    // What the output says to set: the file's own text, trailing newline and all.
    const herald = await startTestHerald({
      dataDir,
      secretKey: `base64:${readFileSync(keyFile, 'utf8')}`,
    });
    try {
      await everySecretWorks(herald, peer, install);
    } finally {
      await herald.close();
    }
    // Or unset it: the file is read.
    const fromFile = await startTestHerald({ dataDir });
    try {
      await deliversSigned(fromFile, peer, install, install.templateToken);
    } finally {
      await fromFile.close();
    }
  }, 120_000);

  it('the new key goes back into HERALD_SECRET_KEY_FILE, the old one kept beside it', async () => {
    const dataDir = newFolder();
    const install = await makeInstall(dataDir, peer);
    const elsewhere = newFolder();
    const keyFile = join(elsewhere, 'herald.key');
    renameSync(join(dataDir, KEY_FILE), keyFile);
    const oldText = readFileSync(keyFile, 'utf8');

    const run = await rotateKey(dataDir, [], { HERALD_SECRET_KEY_FILE: keyFile });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`HERALD_SECRET_KEY_FILE names ${keyFile}`);
    expect(readFileSync(keyFile, 'utf8')).not.toBe(oldText);
    const kept = readdirSync(elsewhere).filter((f) => f.startsWith('herald.key.'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(elsewhere, kept[0]!), 'utf8')).toBe(oldText);
    expect(existsSync(join(dataDir, KEY_FILE))).toBe(false);

    const herald = await startTestHerald({ dataDir, secretKeyFile: keyFile });
    try {
      await deliversSigned(herald, peer, install, install.templateToken);
    } finally {
      await herald.close();
    }
  }, 120_000);
});

describe('making a key from HERALD_SECRET_KEY permanent (--from-env)', () => {
  let peer: HttpPeer;
  let dataDir: string;
  let install: Install;
  let keyText: string;

  beforeAll(async () => {
    peer = await startHttpPeer();
    dataDir = mkdtempSync(join(tmpdir(), 'herald-from-env-'));
    install = await makeInstall(dataDir, peer);
    // As after a restore of a backup made --without-key: the key only in the variable.
    keyText = readFileSync(join(dataDir, KEY_FILE), 'utf8');
    unlinkSync(join(dataDir, KEY_FILE));
  }, 60_000);
  afterAll(async () => {
    await peer.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('HERALD_SECRET_KEY with a key file\'s text but no "base64:" is refused with what to set instead', async () => {
    await expect(startTestHerald({ dataDir, secretKey: keyText })).rejects.toThrow(
      // In process the option's name stands for the variable's.
      /secretKey holds this database's key as a key file writes it, but without "base64:" a value is read as a passphrase: set secretKey=base64:<the same text>/,
    );
  }, 60_000);

  it('writes the key into secret.key, after which Herald starts without the variable', async () => {
    const keyFile = join(dataDir, KEY_FILE);
    // The key file's text as it is, without "base64:": the key it means is written.
    const run = await rotateKey(dataDir, ['--from-env'], { HERALD_SECRET_KEY: keyText });
    expect(run.stderr).toBe('');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Wrote the key of HERALD_SECRET_KEY to ${keyFile}`);
    expect(readFileSync(keyFile, 'utf8')).toBe(keyText);
    expect(modeOf(keyFile)).toBe(0o600);
    expect(keyFingerprint(keyIn(keyFile))).toMatch(/^hmac-sha256:v1:/);

    const again = await rotateKey(dataDir, ['--from-env'], {
      HERALD_SECRET_KEY: `base64:${keyText}`,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('already holds the key of HERALD_SECRET_KEY');

    const herald = await startTestHerald({ dataDir });
    try {
      await everySecretWorks(herald, peer, install);
    } finally {
      await herald.close();
    }
  }, 60_000);

  it("refuses another key than the database's, and --from-env without the variable", async () => {
    const wrong = await rotateKey(dataDir, ['--from-env'], {
      HERALD_SECRET_KEY: `base64:${randomBytes(32).toString('base64')}`,
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('is not the key this database is sealed with');
    const none = await rotateKey(dataDir, ['--from-env']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('HERALD_SECRET_KEY is not set');
  }, 60_000);
});
