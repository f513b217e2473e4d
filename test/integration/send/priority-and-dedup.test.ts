import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Delivery, HostedMessage, Send } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

/**
 * Priority and dedup over real HTTP (issue 24, parts 3 and 4), on SQLite and on PostgreSQL:
 * what each send API takes and refuses, what the logs show, what the hosted channel stores,
 * and the dedup window's whole life (open, suppressed, closed, the repeats it reports).
 */
describe.each([['SQLite', false] as const, ['PostgreSQL', true] as const])(
  'priority and dedup on %s',
  (_name, postgres) => {
    let herald: TestHerald;
    let clock: ManualClock;
    let inboxId: number;
    let token: string;
    let templateId: number;

    beforeAll(async () => {
      clock = new ManualClock();
      herald = await startTestHerald({ postgres, clock, settings: { allowTaskId: true } });
      inboxId = (await herald.createChannel('hosted', {}, 'inbox')).id;
      const created = await herald.createTemplate(
        {
          name: 'disk',
          text: '{{host}} is full (repeated {{repeats}} times)',
          placeholders: [{ key: 'host', label: 'Host' }],
        },
        [{ channelId: inboxId, contentType: 'text' }],
      );
      ({ token } = created);
      templateId = created.template.id;
    });
    afterAll(() => herald.close(true));

    /** The newest send whose title is `title`, as the console's logs show it. */
    async function logged(title: string) {
      const { items } = await herald.console.ok('GET', `/logs?templateId=${templateId}`);
      const send = items.find((s: { title: string }) => s.title === title);
      expect(send, `a send titled ${title}`).toBeDefined();
      return herald.console.ok('GET', `/logs/${send.id}`);
    }

    describe('priority', () => {
      it('takes a number or an ntfy name, keeps it on the send, its deliveries and the hosted message', async () => {
        for (const [given, stored] of [
          [5, 5],
          ['high', 4],
          [' MIN ', 1],
          ['2', 2],
          ['urgent', 5],
        ] as const) {
          const title = `priority ${JSON.stringify(given).trim()}`;
          const r = await herald.sendV2({
            token,
            title,
            placeholders: { host: 'web' },
            priority: given,
          });
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          const detail = await logged(title);
          expect(detail.priority).toBe(stored);
          expect(detail.deliveries.map((d: { priority: number }) => d.priority)).toEqual([stored]);
          const hosted = await HostedMessage.findOne({ where: { title } });
          expect(hosted?.priority).toBe(stored);
        }
      });

      it('is null when none is given: each channel uses its own default', async () => {
        await herald.sendV2({ token, title: 'no priority', placeholders: { host: 'web' } });
        const detail = await logged('no priority');
        expect(detail.priority).toBeNull();
        expect(detail.deliveries[0].priority).toBeNull();
      });

      it('V1 takes it too', async () => {
        const { token: taskToken } = await herald.createTask('prio-task', [
          { channelId: inboxId, contentType: 'text' },
        ]);
        const r = await herald.sendV1({
          token: taskToken,
          title: 'v1 max',
          text: 'x',
          priority: 'max',
        });
        expect(r.status).toBe(200);
        expect((await Send.findOne({ where: { title: 'v1 max' } }))?.priority).toBe(5);
      });

      it('refuses anything else with 400 naming the field, and stores nothing', async () => {
        for (const bad of [0, 6, 2.5, 'loud', '', true, ['high'], { level: 5 }]) {
          const title = `bad priority ${JSON.stringify(bad)}`;
          const r = await herald.sendV2({ token, title, priority: bad });
          expect(r.status, title).toBe(400);
          expect(r.body.msg).toMatch(/priority/);
          expect(r.body.msg).toMatch(/min, low, default, high, max, urgent/);
          expect(await Send.count({ where: { title } })).toBe(0);
        }
      });
    });

    describe('dedup', () => {
      it('delivers the first send of a key, suppresses the rest of its window, and tells the next first how many were suppressed', async () => {
        const send = (title: string, extra: Record<string, unknown> = {}) =>
          herald.sendV2({
            token,
            title,
            placeholders: { host: 'db-1' },
            dedupKey: 'disk db-1',
            ...extra,
          });
        const first = await send('storm 1');
        expect(first.body).toMatchObject({ code: 200, data: { count: 1, deduplicated: false } });
        const firstId = (await logged('storm 1')).id;
        for (const title of ['storm 2', 'storm 3', 'storm 4']) {
          clock.advance(60_000);
          const r = await send(title);
          expect(r.status).toBe(200);
          expect(r.body.data).toEqual({
            token,
            count: 0,
            deduplicated: true,
            firstSendId: firstId,
          });
        }
        // Recorded, not delivered: suppressed in the logs, counted on the first.
        const suppressed = await logged('storm 3');
        expect(suppressed).toMatchObject({
          status: 'suppressed',
          suppressedBy: firstId,
          deliveryCount: 0,
          dedupKey: 'disk db-1',
        });
        expect(suppressed.deliveries).toEqual([]);
        expect((await logged('storm 1')).suppressedCount).toBe(3);
        const { items } = await herald.console.ok('GET', '/logs?status=suppressed');
        expect(items.map((s: { title: string }) => s.title)).toEqual(
          expect.arrayContaining(['storm 2', 'storm 3', 'storm 4']),
        );
        expect(
          await HostedMessage.count({ where: { title: ['storm 2', 'storm 3', 'storm 4'] } }),
        ).toBe(0);
        // The window (300 s by default, from the first send) closes; the next send is delivered
        // and says how many were suppressed since the last delivered one.
        clock.advance(121_000);
        const next = await send('storm 5');
        expect(next.body.data.deduplicated).toBe(false);
        const hosted = await herald.waitFor(() =>
          HostedMessage.findOne({ where: { title: 'storm 5' } }),
        );
        expect(hosted.content).toBe('db-1 is full (repeated 3 times)');
        const delivered = await logged('storm 5');
        expect(delivered.deliveries[0].repeats).toBe(3);
        // It opened a window of its own.
        const after = await send('storm 6');
        expect(after.body.data).toMatchObject({ deduplicated: true, firstSendId: delivered.id });
      });

      it('keeps windows apart per key and per template, and honours dedupWindow', async () => {
        const other = await herald.createTemplate({ name: 'other', text: 'o {{repeats}}' }, [
          { channelId: inboxId, contentType: 'text' },
        ]);
        const a = await herald.sendV2({ token, title: 'k1', dedupKey: 'k1', dedupWindow: 10 });
        const b = await herald.sendV2({ token, title: 'k2', dedupKey: 'k2' });
        const c = await herald.sendV2({
          token: other.token,
          title: 'k1 elsewhere',
          dedupKey: 'k1',
        });
        for (const r of [a, b, c]) expect(r.body.data.deduplicated).toBe(false);
        clock.advance(5_000);
        expect(
          (await herald.sendV2({ token, title: 'k1 again', dedupKey: 'k1' })).body.data
            .deduplicated,
        ).toBe(true);
        clock.advance(6_000);
        const reopened = await herald.sendV2({ token, title: 'k1 later', dedupKey: 'k1' });
        expect(reopened.body.data.deduplicated).toBe(false);
        // Without a key nothing is held back, and the template's {{repeats}} reads 0.
        const plain = await herald.sendV2({ token: other.token, title: 'plain' });
        expect(plain.body.data).not.toHaveProperty('deduplicated');
        const hosted = await herald.waitFor(() =>
          HostedMessage.findOne({ where: { title: 'plain' } }),
        );
        expect(hosted.content).toBe('o 0');
      });

      it('fills a template-defined {{repeats}} with the count on a send with a key, and with its default without one', async () => {
        const own = await herald.createTemplate(
          {
            name: 'own repeats',
            text: 'r={{repeats}}',
            placeholders: [{ key: 'repeats', label: 'Repeats', default: 'n/a' }],
          },
          [{ channelId: inboxId, contentType: 'text' }],
        );
        await herald.sendV2({ token: own.token, title: 'own keyed', dedupKey: 'own' });
        await herald.sendV2({ token: own.token, title: 'own plain' });
        const keyed = await herald.waitFor(() =>
          HostedMessage.findOne({ where: { title: 'own keyed' } }),
        );
        const plain = await herald.waitFor(() =>
          HostedMessage.findOne({ where: { title: 'own plain' } }),
        );
        expect(keyed.content).toBe('r=0');
        expect(plain.content).toBe('r=n/a');
      });

      it('V1 answers a suppressed send with its own status', async () => {
        const { token: taskToken } = await herald.createTask('dedup-task', [
          { channelId: inboxId, contentType: 'text' },
        ]);
        const body = { token: taskToken, title: 'v1 storm', text: 'x', dedupKey: 'v1' };
        const first = await herald.sendV1(body);
        expect(first.body.data).toMatchObject({ status: 'sent', deduplicated: false });
        const again = await herald.sendV1(body);
        expect(again.body.data).toEqual({
          status: 'suppressed',
          sendId: expect.any(Number),
          deduplicated: true,
          firstSendId: first.body.data.sendId,
        });
        const row = await Send.findByPk(again.body.data.sendId);
        expect(row?.status).toBe('suppressed');
        expect(await Delivery.count({ where: { sendId: again.body.data.sendId } })).toBe(0);
      });

      it('refuses bad keys and windows with 400, and a window without a key', async () => {
        const cases: Array<[Record<string, unknown>, RegExp]> = [
          [{ dedupKey: '' }, /dedupKey/],
          [{ dedupKey: '   ' }, /dedupKey/],
          [{ dedupKey: 'x'.repeat(201) }, /dedupKey.*200/],
          [{ dedupKey: 7 }, /dedupKey/],
          [{ dedupKey: 'k', dedupWindow: 0 }, /dedupWindow/],
          [{ dedupKey: 'k', dedupWindow: 86_401 }, /dedupWindow.*86400/],
          [{ dedupKey: 'k', dedupWindow: 1.5 }, /dedupWindow/],
          [{ dedupKey: 'k', dedupWindow: '60' }, /dedupWindow/],
          [{ dedupWindow: 60 }, /dedupWindow.*dedupKey/],
        ];
        for (const [extra, msg] of cases) {
          const title = `bad dedup ${JSON.stringify(extra).slice(0, 40)}`;
          const r = await herald.sendV2({ token, title, placeholders: { host: 'x' }, ...extra });
          expect(r.status, title).toBe(400);
          expect(r.body.msg).toMatch(msg);
          expect(await Send.count({ where: { title } })).toBe(0);
        }
        const max = await herald.sendV2({
          token,
          title: 'long key',
          dedupKey: 'x'.repeat(200),
          dedupWindow: 86_400,
        });
        expect(max.status).toBe(200);
      });
    });
  },
);
