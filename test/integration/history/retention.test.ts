import { QueryTypes } from 'sequelize';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { Delivery, HostedMessage, Send } from '../../../server/db/models';
import { ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { insertDeliveries, insertMessages, insertSends } from './history-fixtures';

// Each describe starts (and closes) its own Herald here; describes never run interleaved.
let herald: TestHerald;
const OLD = new Date(Date.now() - 100 * 86_400_000)
  .toISOString()
  .replace('T', ' ')
  .replace('Z', ' +00:00');
const MONTH_AGO = new Date(Date.now() - 31 * 86_400_000)
  .toISOString()
  .replace('T', ' ')
  .replace('Z', ' +00:00');

const sql = <T extends object>(q: string) =>
  herald.server.ctx.sequelize.query<T>(q, { type: QueryTypes.SELECT });
const write = (q: string) =>
  herald.server.ctx.writeLock.run(() => herald.server.ctx.sequelize.query(q));
const idsOf = async (title: string) => (await Send.findAll({ where: { title } })).map((s) => s.id);

/** A Herald holding old and new sends and hosted messages, before any prune. */
async function startSeeded(): Promise<TestHerald> {
  herald = await startTestHerald({ startDispatcher: false });
  // More old, finished sends than one batch holds, each with a delivery and an attempt.
  const bulk: Array<[string, string]> = [];
  for (let i = 0; i < 1203; i++) bulk.push(['old finished', 'ancientword']);
  await insertSends(herald, bulk);
  await write(`INSERT INTO deliveries (send_id, channel_id, channel_type, content_type, title, content,
      mentions, status, attempts, next_attempt_at, created_at, updated_at)
    SELECT id, 7, 'webhook', 'text', title, '', '{}', 'sent', 1, 0, created_at, updated_at FROM sends`);
  await write(`INSERT INTO delivery_attempts (delivery_id, attempt, outcome, duration_ms, started_at, created_at)
    SELECT id, 1, 'sent', 5, created_at, created_at FROM deliveries`);
  for (const title of [
    'old retrying',
    'old queued',
    'old sending',
    'old failed',
    'old empty',
    'new',
  ]) {
    await insertSends(herald, [[title, 'ancientword']]);
  }
  await insertDeliveries(herald, (await idsOf('old retrying'))[0], ['sent', 'retrying']);
  await insertDeliveries(herald, (await idsOf('old queued'))[0], ['queued']);
  await insertDeliveries(herald, (await idsOf('old sending'))[0], ['sending']);
  await insertDeliveries(herald, (await idsOf('old failed'))[0], ['failed', 'sent']);
  await insertDeliveries(herald, (await idsOf('new'))[0], ['sent']);
  await write(`UPDATE sends SET created_at = '${OLD}' WHERE title <> 'new'`);
  await write(`UPDATE deliveries SET created_at = '${OLD}'
    WHERE send_id IN (SELECT id FROM sends WHERE title <> 'new')`);

  await insertMessages(herald, [
    ['old message', 'ancientword'],
    ['month-old message', 'ancientword'],
    ['new message', 'ancientword'],
  ]);
  await write(`UPDATE hosted_messages SET created_at = '${OLD}' WHERE title = 'old message'`);
  await write(
    `UPDATE hosted_messages SET created_at = '${MONTH_AGO}' WHERE title = 'month-old message'`,
  );
  return herald;
}

describe('retention settings', () => {
  // Its tests only read the settings or are refused, so they share one Herald.
  beforeAll(async () => {
    herald = await startTestHerald({ startDispatcher: false });
  });
  afterAll(() => herald.close(true));

  it('default to 90 days of sends and hosted messages kept forever', async () => {
    const settings = await herald.console.ok('GET', '/settings');
    expect(settings.retention).toEqual({ sendsDays: 90, messagesDays: 0, auditDays: 365 });
  });

  it.each([
    [{ sendsDays: -1 }, 'retention.sendsDays'],
    [{ messagesDays: 1.5 }, 'retention.messagesDays'],
    [{ auditDays: -1 }, 'retention.auditDays'],
    [{ sendsDays: '30' }, 'retention.sendsDays'],
    [{ keepDays: 3 }, 'retention'],
  ])('reject %j with a 400 naming the field', async (retention, field) => {
    const r = await herald.console.put('/settings', { retention });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(400);
    expect(r.body.msg).toContain(field);
  });
});

describe('pruning', () => {
  // Every prune deletes rows and moves the settings: each test starts from the unpruned data.
  beforeEach(startSeeded);
  afterEach(() => herald.close(true));

  it('deletes old finished sends with their deliveries and attempts, never unfinished ones', async () => {
    const r = await herald.console.ok('POST', '/maintenance/prune');
    expect(r.deleted).toEqual({
      sends: 1205,
      deliveries: 1205,
      attempts: 1203,
      hostedMessages: 0,
      auditEntries: 0,
    });
    const left = (await Send.findAll({ order: [['id', 'ASC']] })).map((s) => s.title);
    expect(left).toEqual(['old retrying', 'old queued', 'old sending', 'new']);
    expect(await Delivery.count()).toBe(5);
    expect(
      Number((await sql<{ n: number }>('SELECT count(*) AS n FROM delivery_attempts'))[0].n),
    ).toBe(0);
    // Their index entries went with them.
    const found = await herald.console.ok('GET', '/logs?q=ancientword&pageSize=100');
    expect(found.items.map((s: { title: string }) => s.title).sort()).toEqual(
      ['new', 'old queued', 'old retrying', 'old sending'].sort(),
    );
    expect(await HostedMessage.count()).toBe(3);
    // A database created by this version gives the freed pages back after a prune
    // (PostgreSQL: autovacuum's business, no free list to report).
    const info = await herald.console.ok('GET', '/maintenance');
    expect(info.autoVacuum).toBe(onPostgres() ? 'none' : 'incremental');
    expect(info.freePages).toBe(0);
  });

  it('prunes hosted messages only once messagesDays is set', async () => {
    // Kept forever by default: a prune takes the old sends and leaves every message.
    const first = await herald.console.ok('POST', '/maintenance/prune');
    expect(first.deleted).toEqual({
      sends: 1205,
      deliveries: 1205,
      attempts: 1203,
      hostedMessages: 0,
      auditEntries: 0,
    });
    expect(await HostedMessage.count()).toBe(3);

    await herald.console.ok('PUT', '/settings', { retention: { messagesDays: 30 } });
    expect((await herald.console.ok('GET', '/settings')).retention).toEqual({
      sendsDays: 90,
      messagesDays: 30,
      auditDays: 365,
    });
    const r = await herald.console.ok('POST', '/maintenance/prune');
    expect(r.deleted).toEqual({
      sends: 0,
      deliveries: 0,
      attempts: 0,
      hostedMessages: 2,
      auditEntries: 0,
    });
    const list = await herald.console.ok('GET', '/messages?q=ancientword');
    expect(list.items.map((m: { title: string }) => m.title)).toEqual(['new message']);
    expect(list.total).toBe(1);
  });

  it('keeps everything when both retentions are 0', async () => {
    await herald.console.ok('PUT', '/settings', { retention: { sendsDays: 0, messagesDays: 0 } });
    await write(`UPDATE sends SET created_at = '${OLD}'`);
    await write(`UPDATE deliveries SET status = 'sent'`);
    const before = [await Send.count(), await Delivery.count(), await HostedMessage.count()];
    const r = await herald.console.ok('POST', '/maintenance/prune');
    expect(r.deleted).toEqual({
      sends: 0,
      deliveries: 0,
      attempts: 0,
      hostedMessages: 0,
      auditEntries: 0,
    });
    expect([await Send.count(), await Delivery.count(), await HostedMessage.count()]).toEqual(
      before,
    );
  });
});

describe('GET /maintenance', () => {
  beforeEach(startSeeded);
  afterEach(() => herald.close(true));

  it('answers the database size, free pages and row counts', async () => {
    // The counts after a prune of old sends and of hosted messages older than 30 days.
    await herald.console.ok('PUT', '/settings', { retention: { messagesDays: 30 } });
    await herald.console.ok('POST', '/maintenance/prune');
    await herald.console.ok('PUT', '/settings', { retention: { sendsDays: 0, messagesDays: 0 } });
    // New sends wait a moment for the search indexer (history/search-backfill.ts).
    await herald.waitFor(
      async () => (await herald.console.ok('GET', '/maintenance')).searchIndexPending === 0,
    );
    const info = await herald.console.ok('GET', '/maintenance');
    expect(info.rows).toEqual({ sends: 4, deliveries: 5, attempts: 0, hostedMessages: 1 });
    expect(info.file).toMatch(onPostgres() ? /^PostgreSQL database herald_test_/ : /herald\.db$/);
    expect(info.dbBytes).toBeGreaterThan(0);
    expect(info.sizeBytes).toBe(info.dbBytes + info.walBytes);
    expect(info.pageCount).toBeGreaterThan(0);
    expect(info.searchIndexPending).toBe(0);
    expect(info.retention).toEqual({ sendsDays: 0, messagesDays: 0, auditDays: 365 });
  });

  it('is behind the console sign-in', async () => {
    const anonymous = new ConsoleClient(herald.url);
    expect((await anonymous.get('/maintenance')).status).toBe(401);
    expect((await anonymous.post('/maintenance/prune')).status).toBe(401);
  });
});
