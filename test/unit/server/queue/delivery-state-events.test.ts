import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openDatabase, type Database } from '../../../../server/db/database';
import { migrate } from '../../../../server/db/migrate';
import { initModels } from '../../../../server/db/models';
import { HeraldEvents } from '../../../../server/events';
import { DeliveryState, type AcceptInput } from '../../../../server/queue/delivery-state';
import { ManualClock } from '../../../helpers/manual-clock';

/** What DeliveryState tells the console's stream and the desktop shell, after each commit. */
describe('DeliveryState events and refusals', () => {
  let dir: string;
  let db: Database;
  let state: DeliveryState;
  const clock = new ManualClock();
  const events = new HeraldEvents();
  const seen: Array<[string, Record<string, unknown>]> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-state-events-'));
    db = await openDatabase(join(dir, 'state.db'));
    initModels(db.sequelize);
    await migrate(db.sequelize);
    state = new DeliveryState({ writer: db.writer, read: db.read, events, clock });
    for (const name of ['send', 'delivery', 'message'] as const) {
      events.on(name, (payload: object) => seen.push([name, { ...payload }]));
    }
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const input = (storeOnAccept: boolean[]): AcceptInput => ({
    send: {
      api: 'v2',
      taskId: null,
      templateId: null,
      sourceName: 'events test',
      title: 'disk full',
      text: 'on web-1',
      html: null,
      markdown: null,
      url: null,
      request: {},
      deliveryCount: storeOnAccept.length,
    },
    deliveries: storeOnAccept.map((store, i) => ({
      instanceId: null,
      channelId: 10 + i,
      channelType: store ? 'hosted' : 'webhook',
      contentType: 'markdown' as const,
      recipient: null,
      title: 'disk full',
      content: `**on web-1** (${i})`,
      url: 'https://status.example.com',
      mentions: { mobiles: [], userIds: [], all: false },
      storeOnAccept: store,
    })),
  });

  it('a send whose hosted delivery is stored at once: send pending, delivery sent, message, send sent', async () => {
    seen.length = 0;
    const accepted = await state.accept(input([true]));
    const [deliveryId] = accepted.deliveryIds;
    expect(accepted.stored).toEqual([
      {
        deliveryId,
        hostedMessageId: expect.any(Number),
        reply: `stored as hosted message ${accepted.stored[0].hostedMessageId}`,
      },
    ]);
    expect(seen).toEqual([
      ['send', { id: accepted.sendId, status: 'pending' }],
      ['delivery', { id: deliveryId, sendId: accepted.sendId, status: 'sent' }],
      [
        'message',
        {
          id: accepted.stored[0].hostedMessageId,
          title: 'disk full',
          content: '**on web-1** (0)',
          format: 'markdown',
          url: 'https://status.example.com',
          // The input gives none: the event says so rather than leaving the field out.
          priority: null,
          createdAt: expect.any(String),
        },
      ],
      ['send', { id: accepted.sendId, status: 'sent' }],
    ]);
    const [row] = await state.current([deliveryId]);
    expect(row).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('a send with a hosted and a queued delivery stays pending, and says so once', async () => {
    seen.length = 0;
    const accepted = await state.accept(input([false, true]));
    expect(accepted.stored.map((s) => s.deliveryId)).toEqual([accepted.deliveryIds[1]]);
    expect(seen.filter(([name]) => name === 'send')).toEqual([
      ['send', { id: accepted.sendId, status: 'pending' }],
    ]);
    const rows = await state.current(accepted.deliveryIds);
    expect(rows.map((r) => [r.id, r.status])).toEqual([
      [accepted.deliveryIds[0], 'queued'],
      [accepted.deliveryIds[1], 'sent'],
    ]);
  });

  it('requeue of a failed delivery tells of the delivery queued and its send pending again', async () => {
    const accepted = await state.accept(input([false]));
    const [id] = accepted.deliveryIds;
    // Tests share the database: other tests' waiting deliveries are claimed along.
    const claimed = (await state.claim(50)).find((d) => d.id === id);
    expect(claimed).toBeDefined();
    await state.record({
      id,
      lease: claimed!.lease,
      status: 'failed',
      outcome: 'permanent',
      error: 'refused',
      reply: null,
      startedAt: clock.now(),
      durationMs: 1,
      retryAt: null,
    });
    seen.length = 0;
    await state.requeue(id);
    expect(seen).toEqual([
      ['delivery', { id, sendId: accepted.sendId, status: 'queued' }],
      ['send', { id: accepted.sendId, status: 'pending' }],
    ]);
  });

  it('requeue refuses with a reason the console shows', async () => {
    const sent = (await state.accept(input([true]))).deliveryIds[0];
    await expect(state.requeue(sent)).rejects.toMatchObject({
      code: 409,
      message: `delivery ${sent} was already sent`,
    });
    const waiting = (await state.accept(input([false]))).deliveryIds[0];
    const claimed = await state.claim(50);
    expect(claimed.map((d) => d.id)).toContain(waiting);
    await expect(state.requeue(waiting)).rejects.toMatchObject({
      code: 409,
      message: `delivery ${waiting} is being sent right now`,
    });
    await expect(state.requeue(999_999)).rejects.toMatchObject({
      code: 404,
      message: 'delivery 999999 does not exist',
    });
  });

  it('claims nothing when asked for nothing', async () => {
    await state.accept(input([false]));
    expect(await state.claim(0)).toEqual([]);
    expect((await state.claim(10)).length).toBeGreaterThan(0);
  });
});
