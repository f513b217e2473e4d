import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HostedMessage } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { QUERIES, TEXTS, insertMessages, insertSends, likeScan, listAll } from './history-fixtures';

let herald: TestHerald;

beforeAll(async () => {
  herald = await startTestHerald({ startDispatcher: false });
  await insertMessages(herald, TEXTS);
  await insertSends(herald, TEXTS);
});
afterAll(() => herald.close(true));

describe('full-text search gives the results of a LIKE scan', () => {
  it.each(QUERIES)('hosted messages, q = %j', async (q) => {
    const expected = await likeScan(herald.server.ctx.sequelize, 'hosted_messages', q);
    const data = await herald.console.ok(
      'GET',
      `/messages?q=${encodeURIComponent(q)}&pageSize=100`,
    );
    expect(data.items.map((m: { id: number }) => m.id)).toEqual(expected);
    expect(data.total).toBe(expected.length);
    expect(data.totalIsCapped).toBe(false);
  });

  it.each(QUERIES)('send log, q = %j', async (q) => {
    const expected = await likeScan(herald.server.ctx.sequelize, 'sends', q);
    const data = await herald.console.ok('GET', `/logs?q=${encodeURIComponent(q)}&pageSize=100`);
    expect(data.items.map((s: { id: number }) => s.id)).toEqual(expected);
    expect(data.total).toBe(expected.length);
  });

  it('finds 2-character Chinese words anywhere, also ending a column or filling it', async () => {
    const titles = async (q: string) =>
      (await herald.console.ok('GET', `/messages?q=${encodeURIComponent(q)}&pageSize=100`)).items
        .map((m: { title: string }) => m.title)
        .sort();
    expect(await titles('告警')).toEqual(['告警', '数据库延迟告警'].sort());
    expect(await titles('部署')).toEqual(['Partial 部署 rollout', 'x', '部署完成'].sort());
    expect(await titles('数据库延迟')).toEqual(['告警', '数据库延迟告警'].sort());
  });

  it('matches English substrings whatever their case', async () => {
    const ids = await listAll(herald, '/messages?q=ACKu');
    const titles = (await HostedMessage.findAll({ where: { id: ids } })).map((m) => m.title);
    expect(titles.sort()).toEqual(
      ['BACKUP FAILED', 'Nightly Backup completed', 'Partial 部署 rollout'].sort(),
    );
  });

  it('combines a search with the other filters of the send log', async () => {
    const all = await likeScan(herald.server.ctx.sequelize, 'sends', '部署');
    const v1 = await herald.server.ctx.sequelize.query<{ id: number }>(
      `SELECT id FROM sends WHERE api = 'v1' AND id IN (:all) ORDER BY id DESC`,
      { type: QueryTypes.SELECT, replacements: { all } },
    );
    const data = await herald.console.ok(
      'GET',
      `/logs?q=${encodeURIComponent('部署')}&api=v1&pageSize=100`,
    );
    expect(data.items.map((s: { id: number }) => s.id)).toEqual(v1.map((r) => r.id));
    expect(v1.length).toBeGreaterThan(0);
    expect(v1.length).toBeLessThan(all.length);
  });

  it('pages search results newest first without gaps', async () => {
    const expected = await likeScan(herald.server.ctx.sequelize, 'hosted_messages', '告');
    const pages: number[] = [];
    for (let page = 1; page <= Math.ceil(expected.length / 2); page++) {
      const data = await herald.console.ok('GET', `/messages?q=告&page=${page}&pageSize=2`);
      pages.push(...data.items.map((m: { id: number }) => m.id));
      expect(data.total).toBe(expected.length);
    }
    expect(pages).toEqual(expected);
  });

  it('follows edits and deletes of indexed rows', async () => {
    // Its own row: editing and deleting one of TEXTS would change what the other tests find.
    const m = await herald.server.ctx.writeLock.run(() =>
      HostedMessage.create({
        channelId: null,
        deliveryId: null,
        title: 'QUOTA EXCEEDED',
        content: '配额用尽，写入失败',
        format: 'text',
        url: null,
      }),
    );
    expect(await listAll(herald, `/messages?q=${encodeURIComponent('配额用尽')}`)).toEqual([m.id]);
    await herald.server.ctx.writeLock.run(() => m.update({ title: 'Disk full' }));
    expect(await listAll(herald, '/messages?q=disk%20full')).toEqual([m.id]);
    await herald.console.ok('DELETE', `/messages/${m.id}`);
    expect(await listAll(herald, '/messages?q=disk%20full')).toEqual([]);
    expect(await listAll(herald, `/messages?q=${encodeURIComponent('配额用尽')}`)).toEqual([]);
  });
});
