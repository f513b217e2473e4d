import { createHash, randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { KEY_FILE } from '../../../server/crypto/server-key';
import { DB_FILE } from '../../../server/data-dir/permissions';
import { openDatabase } from '../../../server/db/database';
import { MIGRATION_NAMES, migrate } from '../../../server/db/migrate';
import { appliedMigrations, readMeta } from '../../../server/features/backup/backup-format';
import { runBackupCli, runRestoreCli } from '../../../server/features/backup/cli';
import { writeBackup } from '../../../server/features/backup/make-backup';
import { restoreBackup } from '../../../server/features/backup/restore';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Every file of a folder with its hash: what "nothing changed" means. */
function folderState(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((name) => [name, sha(join(dir, name))]));
}

/** A folder's siblings: a refused restore leaves no work folder beside the target. */
const siblings = (dir: string) => readdirSync(join(dir, '..')).sort();

describe.skipIf(onPostgres())('restore refuses what it cannot restore, changing nothing', () => {
  let scratch: string;
  let source: string;
  let key: Buffer;
  let withKey: string;
  let withoutKey: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'herald-restore-'));
    source = join(scratch, 'source');
    const herald = await startTestHerald({ dataDir: source });
    await herald.createChannel('webhook', {
      url: 'http://127.0.0.1:9/hook',
      signingSecret: `whsec_${randomBytes(32).toString('base64')}`,
    });
    await herald.close();
    key = Buffer.from(readFileSync(join(source, KEY_FILE), 'utf8').trim(), 'base64');
    withKey = join(scratch, 'with-key.herald-backup');
    withoutKey = join(scratch, 'without-key.herald-backup');
    const common = { dbFile: join(source, DB_FILE), key, heraldVersion: 'test' };
    await writeBackup({ ...common, out: withKey, withoutKey: false });
    await writeBackup({ ...common, out: withoutKey, withoutKey: true });
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const target = (name: string) => join(scratch, 'targets', name, 'data');

  it('a backup holds the key or, --without-key, only its fingerprint', () => {
    const read = (file: string) => {
      const db = new BetterSqlite3(file, { readonly: true });
      try {
        return readMeta(db)!;
      } finally {
        db.close();
      }
    };
    expect(read(withKey).key?.equals(key)).toBe(true);
    expect(read(withoutKey).key).toBeNull();
    expect(read(withoutKey).keyFingerprint).toBe(read(withKey).keyFingerprint);
    expect(read(withKey).lastMigration).toBe(MIGRATION_NAMES.at(-1));
    expect(statSync(withKey).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged file: a changed row, a truncated file, not a SQLite file', async () => {
    const changed = join(scratch, 'changed.herald-backup');
    copyFileSync(withKey, changed);
    const db = new BetterSqlite3(changed);
    db.prepare('UPDATE channels SET name = ?').run('tampered');
    db.close();
    const truncated = join(scratch, 'truncated.herald-backup');
    copyFileSync(withKey, truncated);
    truncateSync(truncated, Math.floor(statSync(truncated).size / 2));
    const garbage = join(scratch, 'garbage.herald-backup');
    writeFileSync(garbage, randomBytes(8192));

    const dir = target('damaged');
    mkdirSync(join(dir, '..'), { recursive: true });
    const around = siblings(dir);
    await expect(restoreBackup({ file: changed, dataDir: dir, env: {} })).rejects.toThrow(
      'does not match its checksum',
    );
    await expect(restoreBackup({ file: truncated, dataDir: dir, env: {} })).rejects.toThrow(
      /damaged|malformed|cannot be opened/,
    );
    await expect(restoreBackup({ file: garbage, dataDir: dir, env: {} })).rejects.toThrow(
      'not a SQLite file',
    );
    expect(existsSync(dir)).toBe(false);
    expect(siblings(dir)).toEqual(around);
  });

  it('refuses a backup without its key unless HERALD_SECRET_KEY is its key', async () => {
    const dir = target('keyless');
    await expect(restoreBackup({ file: withoutKey, dataDir: dir, env: {} })).rejects.toThrow(
      /made without its key.*HERALD_SECRET_KEY/,
    );
    const wrong = `base64:${randomBytes(32).toString('base64')}`;
    await expect(
      restoreBackup({ file: withoutKey, dataDir: dir, env: { HERALD_SECRET_KEY: wrong } }),
    ).rejects.toThrow(/HERALD_SECRET_KEY is not the key/);
    // A key that differs from the one a backup carries is refused too: Herald would start with it.
    await expect(
      restoreBackup({ file: withKey, dataDir: dir, env: { HERALD_SECRET_KEY: wrong } }),
    ).rejects.toThrow(/not the key of/);
    expect(existsSync(dir)).toBe(false);

    const right = `base64:${key.toString('base64')}`;
    const done = await restoreBackup({
      file: withoutKey,
      dataDir: dir,
      env: { HERALD_SECRET_KEY: right },
    });
    expect(done.keyFrom).toBe('environment');
    // The key stays where the user keeps it: not written into the folder.
    expect(readdirSync(dir)).toEqual([DB_FILE]);
    const herald = await startTestHerald({ dataDir: dir, secretKey: right });
    await herald.close();
  });

  it('refuses a folder with data unless --force, which keeps the old content aside', async () => {
    const dir = target('occupied');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const before = folderState(dir);
    await expect(restoreBackup({ file: withKey, dataDir: dir, env: {} })).rejects.toThrow(
      /already holds data.*--force/,
    );
    expect(folderState(dir)).toEqual(before);

    const done = await restoreBackup({ file: withKey, dataDir: dir, env: {}, force: true });
    expect(done.keptAside).toMatch(/data\.before-restore-/);
    expect(folderState(done.keptAside!)).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual([DB_FILE, KEY_FILE]);
    expect(readFileSync(join(dir, KEY_FILE), 'utf8').trim()).toBe(key.toString('base64'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a folder a Herald runs on, even with --force', async () => {
    const dir = target('running');
    const herald: TestHerald = await startTestHerald({ dataDir: dir });
    try {
      const before = folderState(dir);
      await expect(
        restoreBackup({ file: withKey, dataDir: dir, env: {}, force: true }),
      ).rejects.toThrow(/Herald is running on .* \(pid \d+\): stop it first/);
      expect(Object.keys(folderState(dir))).toEqual(Object.keys(before));
      expect(siblings(dir).filter((n) => n !== 'data')).toEqual([]);
    } finally {
      await herald.close();
    }
  });

  it('migrates an older backup forward, and refuses one from a newer Herald', async () => {
    const older = join(scratch, 'older');
    mkdirSync(older);
    const db = await openDatabase(join(older, DB_FILE), { writeWorker: 'off' });
    await migrate(db.sequelize, MIGRATION_NAMES.at(-3));
    await db.close();
    const olderBackup = join(scratch, 'older.herald-backup');
    await writeBackup({
      dbFile: join(older, DB_FILE),
      out: olderBackup,
      key,
      withoutKey: false,
      heraldVersion: '0.0.1',
    });
    const dir = target('older');
    const done = await restoreBackup({ file: olderBackup, dataDir: dir, env: {} });
    expect(done.migrated).toEqual(MIGRATION_NAMES.slice(-2));
    const restored = new BetterSqlite3(join(dir, DB_FILE), { readonly: true });
    expect(appliedMigrations(restored)).toEqual([...MIGRATION_NAMES].sort());
    restored.close();

    const newer = join(scratch, 'newer.db');
    copyFileSync(join(source, DB_FILE), newer);
    const n = new BetterSqlite3(newer);
    n.prepare('INSERT INTO schema_migrations (name) VALUES (?)').run('2099-01-01-0000-future');
    n.close();
    const newerBackup = join(scratch, 'newer.herald-backup');
    await writeBackup({
      dbFile: newer,
      out: newerBackup,
      key,
      withoutKey: false,
      heraldVersion: '9.0.0',
    });
    await expect(
      restoreBackup({ file: newerBackup, dataDir: target('newer'), env: {} }),
    ).rejects.toThrow(/newer Herald \(9\.0\.0: migration 2099-01-01-0000-future/);
  });

  it('the command lines refuse on PostgreSQL with the pg_dump and pg_restore lines', async () => {
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((m: unknown) => {
      errors.push(String(m));
    });
    try {
      const env = { HERALD_DATABASE_URL: 'postgres://herald@127.0.0.1:5432/herald' };
      const out = join(scratch, 'pg.herald-backup');
      expect(await runBackupCli(['--out', out], { env, version: 'test' })).toBe(1);
      expect(
        await runRestoreCli([withKey, '--data-dir', target('pg')], { env, version: 'test' }),
      ).toBe(1);
      expect(existsSync(out)).toBe(false);
      expect(existsSync(target('pg'))).toBe(false);
    } finally {
      spy.mockRestore();
    }
    expect(errors[0]).toContain('pg_dump --format=custom');
    expect(errors[0]).toContain('"$HERALD_DATABASE_URL"');
    expect(errors[1]).toContain('pg_restore --clean --if-exists --no-owner');
  });
});
