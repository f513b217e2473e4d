import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Delivery, HostedMessage, Send } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { dayOf, insertDeliveries, insertMessages, insertSends } from './history-fixtures';

let herald: TestHerald;
/** Three days ago (UTC), the day one send is moved to. */
const EARLIER = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
/** The UTC day `n` days before today, as 'YYYY-MM-DD'. */
const dayBefore = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  herald = await startTestHerald({ startDispatcher: false });
});
afterAll(() => herald.close(true));

describe('list totals', () => {
  it('are exact up to 10,000 and capped above, with the cap reported', async () => {
    const rows: Array<[string, string]> = [];
    for (let i = 0; i < 10_050; i++) rows.push([`overflow ${i}`, i === 77 ? 'rare needle' : 'x']);
    await insertMessages(herald, rows);

    const common = await herald.console.ok('GET', '/messages?q=overflow&pageSize=5');
    expect(common).toMatchObject({ total: 10_000, totalIsCapped: true });
    expect(common.items).toHaveLength(5);
    const rare = await herald.console.ok('GET', '/messages?q=needle');
    expect(rare).toMatchObject({ total: 1, totalIsCapped: false });
    // Without a search, the trigger-kept counters are exact however many rows there are.
    const all = await herald.console.ok('GET', '/messages?pageSize=1');
    expect(all).toMatchObject({ total: 10_050, totalIsCapped: false, unreadCount: 10_050 });
    // A deep page past the cap still answers rows.
    const deep = await herald.console.ok('GET', '/messages?q=overflow&page=503&pageSize=20');
    expect(deep.items).toHaveLength(10);

    await herald.console.ok('POST', '/messages/read-all');
    const unread = await herald.console.ok('GET', '/messages?unread=true');
    expect(unread).toMatchObject({ total: 0, totalIsCapped: false, unreadCount: 0 });
    const first = await HostedMessage.findOne({ order: [['id', 'ASC']] });
    await herald.console.ok('PATCH', `/messages/${first!.id}`, { read: false });
    expect(await herald.console.ok('GET', '/messages?unread=true')).toMatchObject({
      total: 1,
      unreadCount: 1,
    });
  });
});

describe('daily roll-ups', () => {
  const sql = (q: string) =>
    herald.server.ctx.sequelize.query<Record<string, unknown>>(q, { type: QueryTypes.SELECT });

  const day = () => dayOf(herald.server.ctx.sequelize, 'created_at');

  async function expectRollupsToMatchRows() {
    expect(
      // Summed by key: on PostgreSQL a roll-up row is a delta its trigger appended.
      await sql(`SELECT day, api, task_id, template_id, source_name, status, sum(n) AS n
                 FROM send_day_rollup GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0
                 ORDER BY 1, 2, 3, 4, 5, 6`),
    ).toEqual(
      await sql(`SELECT ${day()} AS day, api, coalesce(task_id, 0) AS task_id,
                   coalesce(template_id, 0) AS template_id, source_name, status, count(*) AS n
                 FROM sends GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`),
    );
    // A claimed delivery counts under the status it waits in: queued before its first
    // attempt, retrying after.
    expect(
      await sql(`SELECT day, channel_id, status, sum(n) AS n FROM delivery_day_rollup
                 GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`),
    ).toEqual(
      await sql(`SELECT ${day()} AS day, channel_id,
                   CASE WHEN status <> 'sending' THEN status
                        WHEN attempts > 0 THEN 'retrying' ELSE 'queued' END AS status,
                   count(*) AS n
                 FROM deliveries GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
    );
  }

  const rollupRows = () =>
    sql(`SELECT day, channel_id, status, sum(n) AS n FROM delivery_day_rollup
         GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`);

  it('never count a delivery as sending: a claim changes no roll-up row, its outcome moves one', async () => {
    await insertSends(herald, [['claimed', 'body']]);
    const send = await Send.findOne({ where: { title: 'claimed' } });
    await insertDeliveries(herald, send!.id, ['queued', 'retrying']);
    const [first, second] = await Delivery.findAll({
      where: { sendId: send!.id },
      order: [['id', 'ASC']],
    });
    expect(second).toBeDefined();
    await herald.server.ctx.writeLock.run(async () => {
      await Delivery.update({ attempts: 2 }, { where: { id: second.id } });
    });
    const waiting = await rollupRows();
    await herald.server.ctx.writeLock.run(async () => {
      await Delivery.update({ status: 'sending' }, { where: { id: [first.id, second.id] } });
    });
    expect(await rollupRows()).toEqual(waiting);
    expect(waiting.some((r) => r.status === 'sending')).toBe(false);
    await expectRollupsToMatchRows();

    // The outcome: one leaves `queued` for `sent`, the other `retrying` for `failed`.
    await herald.server.ctx.writeLock.run(async () => {
      await Delivery.update({ status: 'sent', attempts: 1 }, { where: { id: first.id } });
      await Delivery.update({ status: 'failed', attempts: 3 }, { where: { id: second.id } });
    });
    await expectRollupsToMatchRows();
    // A claimed delivery deleted with its send leaves its waiting status's count.
    await herald.server.ctx.writeLock.run(async () => {
      await Delivery.update({ status: 'sending', attempts: 0 }, { where: { id: first.id } });
      await Delivery.destroy({ where: { id: first.id } });
    });
    await expectRollupsToMatchRows();
  });

  /**
   * Forgets the upgrade that stopped counting `sending` (2026-11-28-1100) and starts Herald
   * again on the same data, so that it runs once more: no roll-up is left under `sending`.
   */
  async function upgradeAgain() {
    await herald.server.ctx.writeLock.run(() =>
      herald.server.ctx.sequelize.query(
        "DELETE FROM schema_migrations WHERE name = '2026-11-28-1100-lighter-hot-path'",
      ),
    );
    const dataDir = herald.dataDir;
    await herald.close();
    herald = await startTestHerald({ dataDir, startDispatcher: false });
    expect((await rollupRows()).some((r) => r.status === 'sending')).toBe(false);
    await expectRollupsToMatchRows();
  }

  it.skipIf(onPostgres())(
    'are moved off `sending` by the upgrade that stopped counting it (SQLite)',
    async () => {
      await insertSends(herald, [['before upgrade', 'body']]);
      const send = await Send.findOne({ where: { title: 'before upgrade' } });
      await insertDeliveries(herald, send!.id, ['queued']);
      const d = (await Delivery.findOne({ where: { sendId: send!.id } }))!;
      const { sequelize, writeLock } = herald.server.ctx;
      // What the triggers before 2026-11-28-1100 left for a claimed delivery: its count under
      // `sending`, then the migration forgotten so it runs again at the next start.
      await writeLock.run(async () => {
        await sequelize.query(`UPDATE deliveries SET status = 'sending' WHERE id = ${d.id}`);
        const day = `(SELECT substr(created_at, 1, 10) FROM deliveries WHERE id = ${d.id})`;
        await sequelize.query(`UPDATE delivery_day_rollup SET n = n - 1
          WHERE status = 'queued' AND channel_id = 7 AND day = ${day}`);
        await sequelize.query(`INSERT INTO delivery_day_rollup (day, channel_id, status, n)
          VALUES (${day}, 7, 'sending', 1) ON CONFLICT DO UPDATE SET n = n + 1`);
      });
      expect((await rollupRows()).some((r) => r.status === 'sending')).toBe(true);
      await upgradeAgain();
    },
  );

  it.runIf(onPostgres())(
    'are moved off `sending` by the upgrade that stopped counting it (PostgreSQL)',
    async () => {
      await insertSends(herald, [['before upgrade on postgres', 'body']]);
      const send = await Send.findOne({ where: { title: 'before upgrade on postgres' } });
      await insertDeliveries(herald, send!.id, ['queued', 'queued']);
      const [fresh, retried] = await Delivery.findAll({
        where: { sendId: send!.id },
        order: [['id', 'ASC']],
      });
      const { sequelize, writeLock } = herald.server.ctx;
      await writeLock.run(() => Delivery.update({ attempts: 2 }, { where: { id: retried.id } }));
      await expectRollupsToMatchRows();
      // What the roll-up function before 2026-11-28-1100 appended for two claims: each left its
      // waiting status (queued at 0 attempts, retrying after) for `sending`. Then the migration
      // is forgotten, so it runs again at the next start.
      await writeLock.run(async () => {
        await Delivery.update({ status: 'sending' }, { where: { id: [fresh.id, retried.id] } });
        for (const [id, waiting] of [
          [fresh.id, 'queued'],
          [retried.id, 'retrying'],
        ] as const) {
          await sequelize.query(`INSERT INTO delivery_day_rollup (day, channel_id, status, n)
            SELECT ${day()}, channel_id, '${waiting}', -1 FROM deliveries WHERE id = ${id}
            UNION ALL
            SELECT ${day()}, channel_id, 'sending', 1 FROM deliveries WHERE id = ${id}`);
        }
      });
      expect((await rollupRows()).filter((r) => r.status === 'sending')).toEqual([
        expect.objectContaining({ status: 'sending', n: expect.anything() }),
      ]);
      await upgradeAgain();
    },
  );

  it('equal a GROUP BY over the rows after inserts, updates and deletes', async () => {
    const texts: Array<[string, string]> = [];
    for (let i = 0; i < 30; i++) texts.push([`send ${i}`, 'body']);
    await insertSends(herald, texts);
    const sends = await Send.findAll({ order: [['id', 'ASC']] });
    for (const s of sends.slice(0, 10)) await insertDeliveries(herald, s.id, ['queued', 'queued']);
    await expectRollupsToMatchRows();

    const { writeLock, sequelize } = herald.server.ctx;
    await writeLock.run(async () => {
      await Send.update({ status: 'sent' }, { where: { id: sends.slice(0, 12).map((s) => s.id) } });
      await Send.update({ status: 'failed' }, { where: { id: sends[20].id } });
      await Delivery.update({ status: 'sent' }, { where: { sendId: sends[0].id } });
      await Delivery.update({ status: 'retrying' }, { where: { sendId: sends[1].id } });
      // A send from an earlier day moves to another day's bucket.
      await sequelize.query(
        `UPDATE sends SET created_at = '${EARLIER} 03:04:05.000 +00:00' WHERE id = ${sends[2].id}`,
      );
      await sequelize.query(
        `UPDATE deliveries SET created_at = '${EARLIER} 03:04:05.000 +00:00' WHERE send_id = ${sends[2].id}`,
      );
    });
    await expectRollupsToMatchRows();

    await writeLock.run(async () => {
      await Delivery.destroy({ where: { sendId: sends[3].id } });
      await Send.destroy({ where: { id: [sends[3].id, sends[25].id] } });
    });
    await expectRollupsToMatchRows();
  });

  it('feed the dashboard the same numbers the rows give', async () => {
    // Its own sends, one of them on an earlier day, whatever ran before it.
    await insertSends(herald, [
      ['dash 1', 'body'],
      ['dash 2', 'body'],
    ]);
    const mine = await Send.findAll({ where: { title: ['dash 1', 'dash 2'] } });
    await herald.server.ctx.writeLock.run(async () => {
      await Send.update({ status: 'sent' }, { where: { id: mine[0].id } });
      await herald.server.ctx.sequelize.query(
        `UPDATE sends SET created_at = '${EARLIER} 05:06:07.000 +00:00' WHERE id = ${mine[1].id}`,
      );
    });
    const stats = await herald.console.ok('GET', '/stats?days=90');
    const [sends] = await sql(
      `SELECT count(*) AS n FROM sends WHERE ${day()} >= '${dayBefore(29)}'`,
    );
    expect(stats.totals.last30).toBe(Number(sends.n));
    const perStatus = await sql(
      `SELECT status, count(*) AS n FROM sends WHERE ${day()} = '${EARLIER}' GROUP BY status`,
    );
    expect(perStatus.length).toBeGreaterThan(0);
    const earlier = stats.days.find((d: { date: string }) => d.date === EARLIER);
    for (const row of perStatus) expect(earlier[row.status as string]).toBe(Number(row.n));
    const bySource = stats.bySource.map((s: { api: string; sends: number }) => s.sends);
    expect(bySource.reduce((a: number, b: number) => a + b, 0)).toBe(
      Number((await sql('SELECT count(*) AS n FROM sends'))[0].n),
    );
  });
});
