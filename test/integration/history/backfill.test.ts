import { QueryTypes } from 'sequelize';
import { afterEach, describe, expect, it } from 'vitest';

import * as historyIndex from '../../../server/db/migrations/2026-11-23-1100-history-index';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { QUERIES, TEXTS, insertMessages, insertSends, likeScan, listAll } from './history-fixtures';

let herald: TestHerald | undefined;
afterEach(() => herald?.close(true));

/**
 * Turns a data folder back into one written by the version before the history index: the
 * migration undone and forgotten, then rows written with no trigger to index them.
 */
async function downgradeAndWrite(h: TestHerald) {
  const { sequelize } = h.server.ctx;
  await h.server.ctx.writeLock.run(async () => {
    await historyIndex.down({ context: sequelize.getQueryInterface() });
    await sequelize.query(
      // The later migration that rewrites its triggers runs again after it.
      `DELETE FROM schema_migrations
       WHERE name IN ('2026-11-23-1100-history-index', '2026-11-28-1100-lighter-hot-path')`,
    );
  });
  const many: Array<[string, string]> = [];
  // More rows than one backfill batch, so the catch-up runs several transactions.
  for (let i = 0; i < 2100; i++)
    many.push([`filler ${i}`, i % 700 === 0 ? '告警 backup' : 'plain']);
  await insertMessages(h, [...TEXTS, ...many]);
  await insertSends(h, TEXTS);
}

// PostgreSQL builds its trigram index from the rows already there (CREATE INDEX in the
// migration): there is no catch-up to test, and no FTS5 table to downgrade.
describe.skipIf(onPostgres())('rows written before the search index existed', () => {
  it('are indexed after start, and searches find them the way a LIKE scan does', async () => {
    herald = await startTestHerald({ startDispatcher: false });
    await downgradeAndWrite(herald);
    const dataDir = herald.dataDir;
    await herald.close();

    herald = await startTestHerald({ dataDir, startDispatcher: false });
    const h = herald;
    await h.waitFor(
      async () => (await h.console.ok('GET', '/maintenance')).searchIndexPending === 0,
    );
    const { sequelize } = h.server.ctx;
    for (const q of QUERIES) {
      expect(await listAll(h, `/messages?q=${encodeURIComponent(q)}`)).toEqual(
        await likeScan(sequelize, 'hosted_messages', q),
      );
      expect(await listAll(h, `/logs?q=${encodeURIComponent(q)}`)).toEqual(
        await likeScan(sequelize, 'sends', q),
      );
    }
    // Rows written after the upgrade are indexed by the triggers, not twice by the catch-up.
    await insertMessages(h, [['late backup', '后来的告警']]);
    const late = await listAll(h, `/messages?q=${encodeURIComponent('后来的告警')}`);
    expect(late).toHaveLength(1);
    const [indexed] = await sequelize.query<{ n: number }>(
      `SELECT count(*) AS n FROM hosted_messages_fts WHERE hosted_messages_fts MATCH '"filler"'`,
      { type: QueryTypes.SELECT },
    );
    expect(Number(indexed.n)).toBe(2100);
    // Counters and roll-ups were built from the rows that were there.
    const data = await h.console.ok('GET', '/messages');
    expect(data.total).toBe(TEXTS.length + 2100 + 1);
    expect(data.unreadCount).toBe(TEXTS.length + 2100 + 1);
  });

  it('are searched with LIKE while the catch-up has not reached them', async () => {
    herald = await startTestHerald({ startDispatcher: false });
    await insertMessages(herald, TEXTS);
    const { sequelize } = herald.server.ctx;
    // As if the catch-up had not started: the index emptied, the whole range left to do.
    await herald.server.ctx.writeLock.run(async () => {
      await sequelize.query(
        "INSERT INTO hosted_messages_fts (hosted_messages_fts) VALUES ('delete-all')",
      );
      await sequelize.query(
        `UPDATE search_backfill SET done = 0, until = (SELECT max(id) FROM hosted_messages)
         WHERE source = 'hosted_messages'`,
      );
    });
    await insertMessages(herald, [['告警 after', 'backup after']]);
    for (const q of QUERIES) {
      expect(await listAll(herald, `/messages?q=${encodeURIComponent(q)}`)).toEqual(
        await likeScan(sequelize, 'hosted_messages', q),
      );
    }
  });
});
