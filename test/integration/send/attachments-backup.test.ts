import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeBackup } from '../../../server/features/backup/make-backup';
import { restoreBackup } from '../../../server/features/backup/restore';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';

/**
 * Issue 43 §2: a backup of a data folder with files sent with messages holds them with
 * --with-files (restored into attachments/), and by default says it left them out and leaves
 * their rows out too, so a restored Herald lists no file it does not have. SQLite only: a
 * PostgreSQL Herald is backed up with pg_dump (its files with the data folder).
 */
describe.skipIf(process.env.HERALD_TEST_DATABASE === 'postgres')('backups and files', () => {
  let herald: TestHerald;
  let work: string;
  let fileId: string;
  const bytes = Buffer.from('report body\n');

  beforeAll(async () => {
    herald = await startTestHerald();
    work = mkdtempSync(join(tmpdir(), 'herald-files-backup-'));
    const hosted = await herald.createChannel('hosted');
    const { token } = await herald.createTemplate({ text: 'x' }, textInstances([hosted.id]));
    const form = new FormData();
    form.set('payload_json', JSON.stringify({ token, title: 'with a file' }));
    form.append('files[]', new Blob([bytes]), 'report.txt');
    const res = await fetch(`${herald.url}/api/v2/message/send`, { method: 'POST', body: form });
    expect(((await res.json()) as { code: number }).code).toBe(200);
    fileId = readdirSync(join(herald.dataDir, 'attachments')).find((n) => n !== '.staging')!;
    await herald.close();
  });

  afterAll(() => {
    rmSync(herald.dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  const backup = (name: string, withFiles?: boolean) =>
    writeBackup({
      dbFile: join(herald.dataDir, 'herald.db'),
      out: join(work, name),
      key: readKey(),
      withoutKey: false,
      withFiles,
      heraldVersion: 'test',
    });
  const readKey = () =>
    Buffer.from(readFileSync(join(herald.dataDir, 'secret.key'), 'utf8').trim(), 'base64');
  const attachmentRows = (dataDir: string) => {
    const db = new BetterSqlite3(join(dataDir, 'herald.db'), { readonly: true });
    try {
      return db.prepare('SELECT id FROM attachments').all() as Array<{ id: string }>;
    } finally {
      db.close();
    }
  };

  it('writeBackup() includes the files with withFiles, and restore puts them back', async () => {
    const made = await backup('with.herald-backup', true);
    expect(made.files).toEqual({ included: true, count: 1, bytes: bytes.length });
    const into = join(work, 'restored-with');
    await restoreBackup({ file: made.file, dataDir: into });
    expect(readFileSync(join(into, 'attachments', fileId))).toEqual(bytes);
    expect(attachmentRows(into)).toEqual([{ id: fileId }]);
  });

  it('writeBackup() leaves the files and their rows out by default, and says how many', async () => {
    const made = await backup('without.herald-backup');
    expect(made.files).toEqual({ included: false, count: 1, bytes: bytes.length });
    const into = join(work, 'restored-without');
    await restoreBackup({ file: made.file, dataDir: into });
    expect(existsSync(join(into, 'attachments', fileId))).toBe(false);
    expect(attachmentRows(into)).toEqual([]);
  });
});
