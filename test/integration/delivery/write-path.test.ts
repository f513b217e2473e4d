import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HostedMessage, Task } from '../../../server/db/models';
import { LEASE_MS } from '../../../server/queue/delivery-state';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';
import { ManualClock } from '../../helpers/manual-clock';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

describe('one write path', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  const clock = new ManualClock();

  beforeAll(async () => {
    herald = await startTestHerald({ clock, startDispatcher: false });
    peer = await startHttpPeer();
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const writer = () => herald.server.ctx.writeLock;
  const sendLog = (sendId: number) => herald.console.ok('GET', `/logs/${sendId}`);

  it('a console read issued while a write cycle is open does not see its uncommitted rows', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let written!: () => void;
    const inside = new Promise<void>((r) => (written = r));
    const job = writer().run(async () => {
      await Task.create({ name: 'not yet committed' });
      written();
      await gate;
    });
    await inside;
    const during = await herald.console.ok('GET', '/tasks?name=committed');
    expect(during.items.map((t: any) => t.name)).not.toContain('not yet committed');
    release();
    await job;
    const after = await herald.console.ok('GET', '/tasks?name=committed');
    expect(after.items.map((t: any) => t.name)).toContain('not yet committed');
  });

  it('an outcome that cannot be recorded is retried alone; the others commit and nothing goes out twice', async () => {
    const hooks = await Promise.all(
      ['a', 'b', 'c'].map((p) => herald.createChannel('webhook', { url: `${peer.url}/${p}` })),
    );
    const { token } = await herald.createTemplate(
      { text: 'fan out' },
      hooks.map((h) => ({ channelId: h.id, contentType: 'text' as const })),
    );
    const accepted = await herald.sendV2({ token, title: 'record fails once' });
    expect(accepted.body.data.count).toBe(3);
    const { items } = await herald.console.ok('GET', '/logs?q=record fails once');
    const sendId = items[0].id;
    const deliveries = (await sendLog(sendId)).deliveries as Array<{ id: number }>;
    const victim = deliveries[1].id;
    // A real database failure for one delivery's attempt record, inside the batch of three.
    await writer().run(({ sql }) =>
      sql.exec(
        onPostgres()
          ? `CREATE FUNCTION refuse_record() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
               IF NEW.delivery_id = ${victim} THEN RAISE EXCEPTION 'injected failure'; END IF;
               RETURN NEW;
             END $$;
             CREATE TRIGGER refuse_record BEFORE INSERT ON delivery_attempts
               FOR EACH ROW EXECUTE FUNCTION refuse_record()`
          : `CREATE TRIGGER refuse_record BEFORE INSERT ON delivery_attempts
             WHEN NEW.delivery_id = ${victim}
             BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
      ),
    );

    const dispatcher = herald.server.ctx.dispatcher;
    const running = dispatcher.runDue();
    await herald.waitFor(() => peer.received.length >= 3);
    const states = () =>
      sendLog(sendId).then((log) => log.deliveries.map((d: any) => [d.id, d.status]));
    await herald.waitFor(async () =>
      (await states()).every(([id, s]: [number, string]) => (id === victim) !== (s === 'sent')),
    );
    expect(Object.fromEntries(await states())[victim]).toBe('sending');

    // Even once its lease has run out, the delivery whose record is pending is not claimed again.
    clock.advance(LEASE_MS + 1);
    expect(await dispatcher.runDue()).toBe(0);

    await writer().run(({ sql }) =>
      sql.exec(
        onPostgres()
          ? 'DROP TRIGGER refuse_record ON delivery_attempts; DROP FUNCTION refuse_record()'
          : 'DROP TRIGGER refuse_record',
      ),
    );
    expect(await running).toBe(3);
    const log = await sendLog(sendId);
    expect(log.status).toBe('sent');
    for (const d of log.deliveries) {
      expect(d.status).toBe('sent');
      expect(d.attemptLog.map((a: any) => a.outcome)).toEqual(['sent']);
    }
    expect(peer.received.map((r) => r.url).sort()).toEqual(['/a', '/b', '/c']);
  }, 60_000);

  it('a hosted message whose attempt died before recording success is stored once', async () => {
    const store = herald.server.ctx.adapterRuntime.storeHostedMessage;
    const message = {
      channelId: 1,
      deliveryId: 424242,
      title: 'stored once',
      content: 'x',
      format: 'text' as const,
      url: null,
    };
    const announced: number[] = [];
    const listener = (m: { id: number }) => announced.push(m.id);
    herald.server.events.on('message', listener);
    try {
      const first = await store(message);
      const again = await store(message);
      expect(again.id).toBe(first.id);
      expect(announced).toEqual([first.id]);
    } finally {
      herald.server.events.off('message', listener);
    }
    expect(await HostedMessage.count({ where: { deliveryId: 424242 } })).toBe(1);
  });
});
