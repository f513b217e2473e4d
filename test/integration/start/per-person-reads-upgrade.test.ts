import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { migrate } from '../../../server/db/migrate';
import { ADMIN, startTestHerald } from '../../helpers/herald';
import { openFolderDatabase } from '../../helpers/test-database';
import { hashPassword } from '../../../server/features/auth/password-hash';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

const BEFORE = '2026-11-26-1100-template-hook-secret';

/**
 * Migration 2026-11-27-1100-per-person-reads: the one global read flag of a folder the previous
 * version left becomes the read state of its administrator, with either watermark.
 */
describe('read state across the upgrade to per-person reads', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  /** A previous-version folder with the administrator and messages read (true) or not. */
  async function previousVersionFolder(read: boolean[]): Promise<string> {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-reads-upgrade-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const db = await openFolderDatabase(dataDir);
    try {
      await migrate(db.sequelize, BEFORE);
      const at = "'2026-11-20 10:00:00.000 +00:00'";
      const hash = await hashPassword(ADMIN.password);
      await db.sequelize.query(
        `INSERT INTO users (username, password_hash, created_at, updated_at)
         VALUES (:u, :h, ${at}, ${at})`,
        { replacements: { u: ADMIN.username, h: hash } },
      );
      for (const [i, r] of read.entries()) {
        await db.sequelize.query(
          `INSERT INTO hosted_messages (title, content, format, read_at, created_at, updated_at)
           VALUES ('old ${i}', 'body', 'text', ${r ? at : 'NULL'}, ${at}, ${at})`,
        );
      }
    } finally {
      await db.close();
    }
    return dataDir;
  }

  for (const read of [
    // Few unread: the watermark at the newest message, the unread ones as exceptions.
    [true, false, true, true, false, true],
    // Few read: the watermark below the oldest unread one, the read ones above as exceptions.
    [true, false, false, true, false, false],
    [true, true],
    [false, false],
  ]) {
    it(`carries ${read.map((r) => (r ? 'R' : 'u')).join('')} over to the administrator`, async () => {
      const dataDir = await previousVersionFolder(read);
      const herald = await startTestHerald({ dataDir, startDispatcher: false });
      cleanup.push(() => herald.close());
      const page = await herald.console.ok('GET', '/messages?pageSize=100');
      const byTitle = new Map(page.items.map((m: any) => [m.title, m.read]));
      expect(read.map((_, i) => byTitle.get(`old ${i}`))).toEqual(read);
      const unread = read.filter((r) => !r).length;
      expect(page.unreadCount).toBe(unread);
      expect((await herald.console.ok('GET', '/messages/unread-count')).count).toBe(unread);
      const unreadPage = await herald.console.ok('GET', '/messages?unread=true&pageSize=100');
      expect(unreadPage.items.map((m: any) => m.title).sort()).toEqual(
        read.flatMap((r, i) => (r ? [] : [`old ${i}`])).sort(),
      );
      expect((await herald.console.ok('POST', '/messages/read-all')).updated).toBe(unread);
      expect((await herald.console.ok('GET', '/messages/unread-count')).count).toBe(0);
    });
  }
});
