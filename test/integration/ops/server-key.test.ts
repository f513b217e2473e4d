import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { readHeraldConfig } from '../../../server/config/herald-config';
import { FINGERPRINT_SETTING, keyFingerprint } from '../../../server/crypto/key-fingerprint';
import { KEY_FILE } from '../../../server/crypto/server-key';
import { DB_FILE } from '../../../server/data-dir/permissions';
import { startServer, type StartServerOptions } from '../../../server/index';
import { freePort, startHeraldProcess } from '../../helpers/herald-process';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import {
  createTestDatabase,
  keptDatabases,
  onPostgres,
  openFolderDatabase,
} from '../../helpers/test-database';

/** The fingerprint row as the folder's database holds it (SQLite or PostgreSQL), read with the server stopped. */
async function storedValue(dataDir: string): Promise<string | undefined> {
  const db = await openFolderDatabase(dataDir);
  try {
    const [row] = await db.read.all<{ value: unknown }>(
      `SELECT value FROM settings WHERE key = '${FINGERPRINT_SETTING}'`,
    );
    // SQLite keeps the JSON as text; PostgreSQL hands it back parsed.
    if (row === undefined) return undefined;
    return typeof row.value === 'string' ? row.value : JSON.stringify(row.value);
  } finally {
    await db.close();
  }
}

async function deleteFingerprint(dataDir: string): Promise<void> {
  const db = await openFolderDatabase(dataDir);
  try {
    await db.writer.run(({ sql }) =>
      sql.run(`DELETE FROM settings WHERE key = '${FINGERPRINT_SETTING}'`),
    );
  } finally {
    await db.close();
  }
}

/** startServer on the folder, and on PostgreSQL on the folder's test database. */
async function start(dataDir: string, opts: Partial<StartServerOptions> = {}) {
  let databaseUrl: string | undefined;
  if (onPostgres()) {
    const database = keptDatabases.get(dataDir) ?? (await createTestDatabase());
    keptDatabases.set(dataDir, database);
    databaseUrl = database.url;
  }
  return startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    startDispatcher: false,
    databaseUrl,
    ...opts,
  });
}

/** A template with a hosted instance; its token is sealed with the server key. */
async function hostedTemplate(herald: TestHerald): Promise<string> {
  const hosted = await herald.createChannel('hosted');
  const { token } = await herald.createTemplate({ text: 'sealed' }, [
    { channelId: hosted.id, contentType: 'text' },
  ]);
  return token;
}

describe('one server key across processes', () => {
  let dataDir: string;
  const cleanup: string[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'herald-key-'));
    cleanup.push(dataDir);
  });
  afterEach(() => {
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('a first start records the fingerprint of its key, never the key, and later starts match it', async () => {
    const first = await startTestHerald({ dataDir });
    const token = await hostedTemplate(first);
    await first.close();

    const key = Buffer.from(readFileSync(join(dataDir, KEY_FILE), 'utf8').trim(), 'base64');
    const stored = (await storedValue(dataDir))!;
    expect(JSON.parse(stored).fingerprint).toBe(keyFingerprint(key));
    expect(JSON.parse(stored).fingerprint).toMatch(/^hmac-sha256:v1:[\w-]{43}$/);
    for (const form of ['base64', 'base64url', 'hex'] as const) {
      expect(stored).not.toContain(key.toString(form));
    }

    const again = await startTestHerald({ dataDir });
    expect((await again.sendV2({ token, title: 'after restart' })).status).toBe(200);
    await again.close();
    expect(await storedValue(dataDir)).toBe(stored);
  });

  it('an install from before fingerprints gets its current key recorded, and works as before', async () => {
    const first = await startTestHerald({ dataDir });
    const token = await hostedTemplate(first);
    await first.close();
    const recorded = JSON.parse((await storedValue(dataDir))!).fingerprint;
    await deleteFingerprint(dataDir);
    expect(await storedValue(dataDir)).toBeUndefined();

    const upgraded = await startTestHerald({ dataDir });
    expect((await upgraded.sendV2({ token, title: 'upgraded' })).status).toBe(200);
    await upgraded.close();
    expect(JSON.parse((await storedValue(dataDir))!).fingerprint).toBe(recorded);
  });

  it('a process with another key refuses to start, names where its key came from, and changes nothing', async () => {
    const first = await start(dataDir);
    await first.close();
    const before = await storedValue(dataDir);

    const refused = start(dataDir, { secretKey: 'a different passphrase for this test' });
    await expect(refused).rejects.toThrow(
      /The server key from secretKey does not match the key this database's tokens and secrets were sealed with \(database: [\w-]{12}…, this process: [\w-]{12}…\)/,
    );
    await expect(refused).rejects.toMatchObject({ name: 'ServerKeyMismatchError' });
    expect(await storedValue(dataDir)).toBe(before);

    // The folder was let go: the right key starts at once.
    const right = await start(dataDir);
    await right.close();
  });

  it('HERALD_SECRET_KEY (a passphrase) leaves no key file, and a start without it is refused', async () => {
    const passphrase = 'team passphrase shared by every process';
    const first = await start(dataDir, { secretKey: passphrase });
    await first.close();
    expect(existsSync(join(dataDir, KEY_FILE))).toBe(false);

    await expect(start(dataDir)).rejects.toThrow(
      /secret\.key is missing, but this database's tokens and secrets were sealed with a key/,
    );
    // No new key was made that a later start would then trust.
    expect(existsSync(join(dataDir, KEY_FILE))).toBe(false);
    const again = await start(dataDir, { secretKey: passphrase });
    await again.close();
  });

  it('the data folder key moves to HERALD_SECRET_KEY_FILE or to HERALD_SECRET_KEY=base64:…', async () => {
    const first = await startTestHerald({ dataDir });
    const token = await hostedTemplate(first);
    await first.close();
    const keyText = readFileSync(join(dataDir, KEY_FILE), 'utf8');
    const elsewhere = mkdtempSync(join(tmpdir(), 'herald-keyfile-'));
    cleanup.push(elsewhere);
    const keyFile = join(elsewhere, 'herald.key');
    writeFileSync(keyFile, keyText, { mode: 0o600 });
    unlinkSync(join(dataDir, KEY_FILE));

    const fromFile = await startTestHerald({ dataDir, secretKeyFile: keyFile });
    expect((await fromFile.sendV2({ token, title: 'key from a file' })).status).toBe(200);
    await fromFile.close();

    const fromValue = await startTestHerald({ dataDir, secretKey: `base64:${keyText.trim()}` });
    expect((await fromValue.sendV2({ token, title: 'key from a value' })).status).toBe(200);
    await fromValue.close();
    expect(existsSync(join(dataDir, KEY_FILE))).toBe(false);
  });

  it('a key file that is missing or malformed stops the start before the folder is used', async () => {
    const missing = join(dataDir, 'no-such.key');
    await expect(start(dataDir, { secretKeyFile: missing })).rejects.toThrow(
      `secretKeyFile (${missing}) cannot be read (ENOENT)`,
    );
    const bad = join(dataDir, 'bad.key');
    writeFileSync(bad, randomBytes(16).toString('base64'));
    await expect(start(dataDir, { secretKeyFile: bad })).rejects.toThrow(
      `secretKeyFile (${bad}) does not hold a 32-byte key in base64`,
    );
    expect(existsSync(join(dataDir, DB_FILE))).toBe(false);
  });
});

describe('key and metrics settings', () => {
  const opts = { dataDir: '/nonexistent' };

  it('refuses both key variables at once, naming them', () => {
    expect(() =>
      readHeraldConfig(opts, { HERALD_SECRET_KEY: 'x', HERALD_SECRET_KEY_FILE: '/k' }),
    ).toThrow('HERALD_SECRET_KEY and HERALD_SECRET_KEY_FILE are both set');
  });

  it('refuses a base64: key that is not 32 bytes', () => {
    expect(() =>
      readHeraldConfig(opts, { HERALD_SECRET_KEY: `base64:${randomBytes(31).toString('base64')}` }),
    ).toThrow('HERALD_SECRET_KEY starts with "base64:" but what follows is not 32 bytes in base64');
  });

  it('reads the key source from the variables', () => {
    expect(readHeraldConfig(opts, {}).secretKey).toEqual({ kind: 'data-dir' });
    expect(
      readHeraldConfig(opts, { HERALD_SECRET_KEY_FILE: ' /etc/herald.key ' }).secretKey,
    ).toEqual({ kind: 'file', path: '/etc/herald.key', name: 'HERALD_SECRET_KEY_FILE' });
  });

  it('keeps /metrics off unless HERALD_METRICS=1, and checks the token', () => {
    expect(readHeraldConfig(opts, {}).metrics).toEqual({ enabled: false, token: null });
    expect(readHeraldConfig(opts, { HERALD_METRICS: '1' }).metrics).toEqual({
      enabled: true,
      token: null,
    });
    expect(() => readHeraldConfig(opts, { HERALD_METRICS: 'maybe' })).toThrow(
      'HERALD_METRICS must be 1 (serve /metrics) or 0, not "maybe"',
    );
    expect(() =>
      readHeraldConfig(opts, { HERALD_METRICS: '1', HERALD_METRICS_TOKEN: 'short' }),
    ).toThrow('HERALD_METRICS_TOKEN must be at least 16 characters');
  });
});

// startServer and the spawned process open the folder's SQLite file; on PostgreSQL the same
// refusal is covered in-process above ('a process with another key refuses to start').
describe.skipIf(onPostgres())('headless start with a mismatching key', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'herald-key-headless-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits non-zero with the mismatch named', async () => {
    const first = await start(dataDir);
    await first.close();
    const before = await storedValue(dataDir);

    const port = await freePort();
    const started = startHeraldProcess(dataDir, port, {
      HERALD_SECRET_KEY: 'not the key this folder was set up with',
    });
    await expect(started).rejects.toThrow(/Herald exited \(1\) before it started/);
    await expect(started).rejects.toThrow(
      /The server key from HERALD_SECRET_KEY does not match the key this database's tokens and secrets were sealed with/,
    );
    expect(await storedValue(dataDir)).toBe(before);
  }, 60_000);
});
