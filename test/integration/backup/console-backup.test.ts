import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KEY_FILE } from '../../../server/crypto/server-key';
import { readMeta } from '../../../server/features/backup/backup-format';
import { scheduledName } from '../../../server/features/backup/backup-schedule';
import {
  BackupService,
  DOWNLOAD_SCRATCH_PREFIX,
  NO_ONLINE_BACKUP,
} from '../../../server/features/backup/backup-service';
import { STALE_STAGING_MS } from '../../../server/data-dir/staging';
import { ManualClock } from '../../helpers/manual-clock';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { withoutTempDir } from '../../helpers/without-temp-dir';

const SQLITE_MAGIC = 'SQLite format 3\u0000';

describe('Settings → Backup: the download and the schedule', () => {
  let herald: TestHerald;
  let scratch: string;

  beforeAll(async () => {
    herald = await startTestHerald();
    scratch = mkdtempSync(join(tmpdir(), 'herald-console-backup-'));
  });
  afterAll(async () => {
    await herald.close(true);
    rmSync(scratch, { recursive: true, force: true });
  });

  const download = (query = '', cookie = herald.console.cookie) =>
    fetch(`${herald.url}/api/console/backup${query}`, {
      headers: cookie ? { Cookie: cookie } : {},
    });

  const metaOf = (bytes: Buffer) => {
    const file = join(scratch, `download-${Math.random().toString(36).slice(2)}.herald-backup`);
    writeFileSync(file, bytes);
    const db = new BetterSqlite3(file, { readonly: true });
    try {
      return readMeta(db)!;
    } finally {
      db.close();
    }
  };

  it('needs a session', async () => {
    const res = await download('', '');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: number }).code).toBe(401);
  });

  it.skipIf(onPostgres())('answers a backup file, with the key or without it', async () => {
    const res = await download();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="herald-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.herald-backup"$/,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 16).toString('latin1')).toBe(SQLITE_MAGIC);
    const key = Buffer.from(readFileSync(join(herald.dataDir, KEY_FILE), 'utf8').trim(), 'base64');
    expect(metaOf(bytes).key?.equals(key)).toBe(true);

    const without = await download('?withoutKey=1');
    expect(without.status).toBe(200);
    expect(metaOf(Buffer.from(await without.arrayBuffer())).key).toBeNull();
  });

  it.skipIf(onPostgres())(
    'stages the download in the data folder, not the temp folder, and removes it once sent',
    async () => {
      await withoutTempDir(join(scratch, 'no-such-folder'), async () => {
        const res = await download();
        expect(res.status).toBe(200);
        expect(
          Buffer.from(await res.arrayBuffer())
            .subarray(0, 16)
            .toString('latin1'),
        ).toBe(SQLITE_MAGIC);
      });
      const staged = () =>
        readdirSync(herald.dataDir).filter((n) => n.startsWith(DOWNLOAD_SCRATCH_PREFIX));
      for (let i = 0; i < 50 && staged().length > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(staged()).toEqual([]);
    },
  );

  it.skipIf(onPostgres())(
    'removes what a download cut short a day ago left, never one under way',
    async () => {
      const stale = join(herald.dataDir, `${DOWNLOAD_SCRATCH_PREFIX}crashed`);
      const fresh = join(herald.dataDir, `${DOWNLOAD_SCRATCH_PREFIX}under-way`);
      for (const folder of [stale, fresh]) {
        mkdirSync(folder);
        writeFileSync(join(folder, 'herald.herald-backup'), 'partial');
      }
      const dayAndAHalfAgo = new Date(Date.now() - STALE_STAGING_MS * 1.5);
      utimesSync(stale, dayAndAHalfAgo, dayAndAHalfAgo);
      try {
        const res = await download();
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        expect(existsSync(stale)).toBe(false);
        expect(existsSync(join(fresh, 'herald.herald-backup'))).toBe(true);
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    },
  );

  it.runIf(onPostgres())('on PostgreSQL refuses with the pg_dump line', async () => {
    const res = await download();
    expect(res.status).toBe(409);
    expect(((await res.json()) as { msg: string }).msg).toContain('pg_dump --format=custom');
    const schedule = await herald.console.ok('GET', '/backup/schedule');
    expect(schedule.available).toBe(false);
  });

  it('keeps the schedule, checking its fields', async () => {
    const initial = await herald.console.ok('GET', '/backup/schedule');
    expect(initial).toMatchObject({
      defaultFolder: join(herald.dataDir, 'backups'),
      available: !onPostgres(),
    });
    const folder = join(scratch, 'scheduled');
    const saved = await herald.console.ok('PUT', '/backup/schedule', {
      enabled: true,
      everyHours: 12,
      keep: 3,
      folder,
    });
    expect(saved).toMatchObject({ enabled: true, everyHours: 12, keep: 3, folder });
    expect(await herald.console.ok('GET', '/backup/schedule')).toMatchObject({ keep: 3, folder });
    const relative = await herald.console.put('/backup/schedule', { folder: 'backups' });
    expect(relative.status).toBe(400);
    expect(relative.body.msg).toContain('absolute path');
    const zero = await herald.console.put('/backup/schedule', { keep: 0 });
    expect(zero.status).toBe(400);
    await herald.console.ok('PUT', '/backup/schedule', { enabled: false, folder: '' });
  });
});

describe.skipIf(onPostgres())('scheduled backups', () => {
  // One Herald per test: each saves a schedule of its own, and the default needs none saved.
  const heralds: TestHerald[] = [];
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'herald-scheduled-'));
  });
  afterAll(async () => {
    for (const herald of heralds) await herald.close(true);
    rmSync(folder, { recursive: true, force: true });
  });

  const serviceAt = (
    herald: TestHerald,
    clock: ManualClock,
    backupsByDefault: boolean,
    onlineBackup?: boolean,
  ) =>
    new BackupService({
      dataDir: herald.dataDir,
      sqlite: true,
      onlineBackup,
      masterKey: Buffer.from(readFileSync(join(herald.dataDir, KEY_FILE), 'utf8').trim(), 'base64'),
      version: 'test',
      clock,
      writeLock: herald.server.ctx.writeLock,
      backupsByDefault,
    });

  it('off by default; the desktop default backs up daily into the data folder', async () => {
    const herald = await startTestHerald();
    heralds.push(herald);
    const clock = new ManualClock(Date.parse('2026-11-27T14:00:00Z'));
    expect(await serviceAt(herald, clock, false).runScheduled()).toBeNull();
    const desktop = serviceAt(herald, clock, true);
    expect(await desktop.schedule()).toMatchObject({ enabled: true, everyHours: 24, keep: 7 });
    const made = await desktop.runScheduled();
    expect(made?.file).toBe(join(herald.dataDir, 'backups', scheduledName(new Date(clock.now()))));
    expect((await desktop.schedule()).lastBackupAt).toBe('2026-11-27T14:00:00.000Z');
  });

  it('on node-sqlite3 (a development Electron run) refuses with what to do, and makes nothing', async () => {
    const herald = await startTestHerald();
    heralds.push(herald);
    const clock = new ManualClock(Date.parse('2026-11-27T14:00:00Z'));
    const service = serviceAt(herald, clock, true, false);
    const refused = await service.download({ withoutKey: false }).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 409, message: NO_ONLINE_BACKUP });
    await expect(service.runScheduled()).rejects.toThrow(NO_ONLINE_BACKUP);
    expect(await service.schedule()).toMatchObject({ lastError: NO_ONLINE_BACKUP });
    expect(existsSync(join(herald.dataDir, 'backups'))).toBe(false);
  });

  it('backs up once its interval has passed and keeps the newest N', async () => {
    const herald = await startTestHerald();
    heralds.push(herald);
    const clock = new ManualClock(Date.parse('2026-12-01T00:00:00Z'));
    const service = serviceAt(herald, clock, false);
    await service.updateSchedule({
      enabled: true,
      everyHours: 6,
      keep: 2,
      folder,
      includeKey: false,
    });
    writeFileSync(join(folder, 'mine.herald-backup'), 'not a scheduled one');
    const made: string[] = [];
    for (let step = 0; step < 8; step++) {
      const backup = await service.runScheduled();
      if (backup) made.push(backup.file);
      clock.advance(2 * 3_600_000);
    }
    // 0 h, 6 h, 12 h (checks at 0, 2, …, 14 h): three made, the oldest then deleted.
    expect(made.map((f) => f.slice(folder.length + 1))).toEqual([
      scheduledName(new Date('2026-12-01T00:00:00Z')),
      scheduledName(new Date('2026-12-01T06:00:00Z')),
      scheduledName(new Date('2026-12-01T12:00:00Z')),
    ]);
    expect(readdirSync(folder).sort()).toEqual(
      ['mine.herald-backup', ...made.slice(1).map((f) => f.slice(folder.length + 1))].sort(),
    );
    const db = new BetterSqlite3(made[2], { readonly: true });
    expect(readMeta(db)?.key).toBeNull();
    db.close();
  });
});
