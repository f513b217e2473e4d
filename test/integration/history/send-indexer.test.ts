import { QueryTypes } from 'sequelize';
import { afterEach, describe, expect, it } from 'vitest';

import { Send } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { QUERIES, TEXTS, insertSends, likeScan, listAll } from './history-fixtures';

let herald: TestHerald | undefined;
afterEach(() => herald?.close(true));

const indexed = async (h: TestHerald, word: string) => {
  const [row] = await h.server.ctx.sequelize.query<{ n: number }>(
    `SELECT count(*) AS n FROM sends_fts WHERE sends_fts MATCH :m`,
    { type: QueryTypes.SELECT, replacements: { m: `"${word}"` } },
  );
  return Number(row.n);
};

const pending = async (h: TestHerald) =>
  (await h.console.ok('GET', '/maintenance')).searchIndexPending as number;

// PostgreSQL keeps its trigram index itself, in the INSERT's transaction.
describe.skipIf(onPostgres())('new sends and the search index (SQLite)', () => {
  it('are searchable at once, and indexed in a batch once their arrival pauses', async () => {
    herald = await startTestHerald({ startDispatcher: false });
    const h = herald;
    await insertSends(h, TEXTS);
    // The INSERT left the index alone: the sends wait for the indexer, and searches scan them.
    expect(await indexed(h, 'backup')).toBe(0);
    expect(await pending(h)).toBeGreaterThanOrEqual(TEXTS.length);
    const { sequelize } = h.server.ctx;
    for (const q of QUERIES) {
      expect(await listAll(h, `/logs?q=${encodeURIComponent(q)}`)).toEqual(
        await likeScan(sequelize, 'sends', q),
      );
    }

    await h.waitFor(async () => (await pending(h)) === 0);
    expect(await indexed(h, 'backup')).toBeGreaterThan(0);
    for (const q of QUERIES) {
      expect(await listAll(h, `/logs?q=${encodeURIComponent(q)}`)).toEqual(
        await likeScan(sequelize, 'sends', q),
      );
    }
  });

  it('index the text a send has when the indexer reaches it, and again when it changes after', async () => {
    herald = await startTestHerald({ startDispatcher: false });
    const h = herald;
    await insertSends(h, [['first words', 'alpha']]);
    await h.waitFor(async () => (await pending(h)) === 0);
    const first = await Send.findOne({ where: { title: 'first words' } });

    // Already indexed: its update trigger indexes the new text at once.
    await h.server.ctx.writeLock.run(() =>
      Send.update({ title: 'renamed quickly' }, { where: { id: first!.id } }),
    );
    expect(await indexed(h, 'renamed')).toBe(1);
    expect(await indexed(h, 'first')).toBe(0);

    // Not indexed yet: changed and deleted sends are left to the indexer, which reads the text
    // as it is then and never meets the deleted one.
    await insertSends(h, [
      ['second words', 'beta'],
      ['third words', 'gamma'],
    ]);
    const second = await Send.findOne({ where: { title: 'second words' } });
    const third = await Send.findOne({ where: { title: 'third words' } });
    await h.server.ctx.writeLock.run(async () => {
      await Send.update({ title: 'changed before indexing' }, { where: { id: second!.id } });
      await Send.destroy({ where: { id: third!.id } });
    });
    expect(await indexed(h, 'changed')).toBe(0);
    expect(await listAll(h, `/logs?q=${encodeURIComponent('changed before')}`)).toEqual([
      second!.id,
    ]);
    await h.waitFor(async () => (await pending(h)) === 0);
    expect(await indexed(h, 'changed')).toBe(1);
    expect(await indexed(h, 'second')).toBe(0);
    expect(await indexed(h, 'third')).toBe(0);
    expect(await listAll(h, `/logs?q=${encodeURIComponent('changed before')}`)).toEqual([
      second!.id,
    ]);
  });

  it('are indexed after a restart when the last process stopped before it got to them', async () => {
    herald = await startTestHerald({ startDispatcher: false });
    await insertSends(herald, [['left behind', 'delta']]);
    const dataDir = herald.dataDir;
    await herald.close();
    herald = await startTestHerald({ dataDir, startDispatcher: false });
    const h = herald;
    await h.waitFor(async () => (await pending(h)) === 0);
    expect(await indexed(h, 'behind')).toBe(1);
  });
});
