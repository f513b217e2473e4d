import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DB_FILE } from '../../../server/data-dir/permissions';
import { loadServerKey } from '../../../server/crypto/server-key';
import { checkBackup } from '../../../server/features/backup/backup-check';
import { BackupRefused } from '../../../server/features/backup/backup-refused';
import {
  runBackupThread,
  writeBackupOffThread,
} from '../../../server/features/backup/backup-thread';
import { workerEntry, type WorkerEntry } from '../../../server/lib/worker-file';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';

/** The backup thread as Herald starts it here, from its sources (server/workers/). */
const backupWorker = (): WorkerEntry => {
  const entry = workerEntry('backup-worker');
  if (!entry) throw new Error('no backup worker: is tsx installed?');
  return entry;
};
const fileWorker = (file: string): WorkerEntry => ({ file, argv: [] });

// A backup of a data folder's SQLite file: the PostgreSQL pass has none.
describe.skipIf(onPostgres())('the backup thread', () => {
  let herald: TestHerald;
  let scratch: string;
  let dbFile: string;
  let key: Buffer;

  beforeAll(async () => {
    herald = await startTestHerald();
    scratch = mkdtempSync(join(tmpdir(), 'herald-backup-thread-'));
    dbFile = join(herald.dataDir, DB_FILE);
    key = loadServerKey(herald.dataDir, {});
    const channel = await herald.createChannel('hosted', {});
    const { token } = await herald.createTemplate({ text: 'kept' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    expect((await herald.sendV2({ token, title: 'before the backup' })).body.code).toBe(200);
  });
  afterAll(async () => {
    await herald.close(true);
    rmSync(scratch, { recursive: true, force: true });
  });

  const options = (out: string, over: { key?: Buffer | null } = {}) => ({
    dbFile,
    out: join(scratch, out),
    key: over.key === undefined ? key : over.key,
    withoutKey: false,
    heraldVersion: '9.9.9-test',
    now: () => new Date('2026-11-27T04:00:00.000Z'),
  });

  it('makes the running Herald’s backup on a thread other than the main one, complete and checked', async () => {
    const { made, threadId } = await runBackupThread(
      backupWorker(),
      options('thread.herald-backup'),
    );
    expect(isMainThread).toBe(true);
    expect(threadId).toBeGreaterThan(0);
    expect(made).toMatchObject({
      file: join(scratch, 'thread.herald-backup'),
      includesKey: true,
      heraldVersion: '9.9.9-test',
      createdAt: '2026-11-27T04:00:00.000Z',
    });
    expect(made.bytes).toBeGreaterThan(0);
    const checked = checkBackup(made.file, 'the backup');
    expect(checked.meta.key?.equals(key)).toBe(true);
    expect(checked.meta.createdAt).toBe('2026-11-27T04:00:00.000Z');
  });

  it('hands back a refusal as the BackupRefused it was, with its advice', async () => {
    const err = await runBackupThread(
      backupWorker(),
      options('wrong-key.herald-backup', { key: randomBytes(32) }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackupRefused);
    expect((err as Error).message).toContain('is not the key this database');
  });

  it('refuses, instead of waiting for ever, when the thread dies or fails before answering', async () => {
    const exits = join(scratch, 'exits.mjs');
    writeFileSync(exits, 'process.exit(3);\n');
    await expect(
      runBackupThread(fileWorker(exits), options('never.herald-backup')),
    ).rejects.toThrow('the backup thread stopped (exit code 3) unanswered');
    const throws = join(scratch, 'throws.mjs');
    writeFileSync(throws, "throw new Error('the disk is gone');\n");
    await expect(
      runBackupThread(fileWorker(throws), options('never.herald-backup')),
    ).rejects.toThrow('the backup thread failed: the disk is gone');
  });

  it('makes it through writeBackupOffThread() on the thread Herald starts from its sources', async () => {
    const made = await writeBackupOffThread(options('here.herald-backup'));
    expect(checkBackup(made.file, 'the backup').meta.heraldVersion).toBe('9.9.9-test');
  });
});
