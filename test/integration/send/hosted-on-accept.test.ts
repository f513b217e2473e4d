import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * A hosted message is stored in the transaction that accepts its send (DeliveryState.accept):
 * it is in the reader when the send is answered, whatever the queue holds. The dispatcher does
 * not run in these tests, so anything stored was stored by the accept.
 */
describe('hosted messages are stored with the send', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let hostedId: number;
  let hookId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ startDispatcher: false });
    peer = await startHttpPeer();
    hostedId = (await herald.createChannel('hosted', {})).id;
    hookId = (await herald.createChannel('webhook', { url: `${peer.url}/hook` })).id;
  });
  afterAll(async () => {
    herald.server.ctx.dispatcher.resume();
    await herald.close(true);
    await peer.close();
  });

  const messagesTitled = async (title: string) =>
    ((await herald.console.ok('GET', `/messages?q=${encodeURIComponent(title)}`)).items as any[])
      .map((m) => m.title)
      .filter((t: string) => t === title);
  const logOf = async (title: string) => {
    const { items } = await herald.console.ok('GET', `/logs?q=${encodeURIComponent(title)}`);
    return herald.console.ok('GET', `/logs/${items[0].id}`);
  };

  it('V2: the message is in the reader when the send is answered; the webhook waits in the queue', async () => {
    const { token } = await herald.createTemplate({ text: 'disk {{pct}}%' }, [
      { channelId: hostedId, contentType: 'text' },
      { channelId: hookId, contentType: 'text' },
    ]);
    const events: Array<{ type: string; status?: string }> = [];
    const onDelivery = (e: { status: string }) => events.push({ type: 'delivery', ...e });
    const onMessage = () => events.push({ type: 'message' });
    herald.server.ctx.events.on('delivery', onDelivery);
    herald.server.ctx.events.on('message', onMessage);
    try {
      const res = await herald.sendV2({
        token,
        title: 'stored at accept v2',
        placeholders: { pct: 97 },
      });
      expect(res.body.code).toBe(200);
      expect(await messagesTitled('stored at accept v2')).toEqual(['stored at accept v2']);
      expect(events.map((e) => [e.type, e.status])).toEqual([
        ['delivery', 'sent'],
        ['message', undefined],
      ]);
    } finally {
      herald.server.ctx.events.off('delivery', onDelivery);
      herald.server.ctx.events.off('message', onMessage);
    }

    const log = await logOf('stored at accept v2');
    expect(log.status).toBe('pending');
    const byType = new Map((log.deliveries as any[]).map((d) => [d.channelType, d]));
    expect(byType.get('hosted').status).toBe('sent');
    expect(byType.get('hosted').attemptLog).toHaveLength(1);
    expect(byType.get('hosted').attemptLog[0].outcome).toBe('sent');
    expect(byType.get('webhook').status).toBe('queued');
    expect(peer.received).toHaveLength(0);
  });

  it('V1 waits for nothing when every delivery was stored with the accept', async () => {
    const { token } = await herald.createTask('stored at accept v1', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const res = await herald.sendV1({ token, title: 'stored at accept v1', text: 'body' });
    expect(res.body.code).toBe(200);
    expect(res.body.data.status).toBe('sent');
    expect(await messagesTitled('stored at accept v1')).toEqual(['stored at accept v1']);
    expect((await logOf('stored at accept v1')).status).toBe('sent');
  });

  it('`hostedMessageOf()` makes a message the queue stores (deliveries paused) as the accept makes it', async () => {
    const { token } = await herald.createTemplate(
      { markdown: '**{{what}}** down', placeholders: [{ key: 'what', label: 'what' }] },
      [{ channelId: hostedId, contentType: 'markdown', publicLink: true }],
    );
    const send = (title: string) =>
      herald.sendV2({
        token,
        title,
        placeholders: { what: 'db-1' },
        url: 'https://status.example/db-1',
        priority: 4,
      });
    const announced: any[] = [];
    const onMessage = (m: unknown) => announced.push(m);
    herald.server.ctx.events.on('message', onMessage);
    try {
      expect((await send('twin at accept')).body.code).toBe(200);
      herald.server.ctx.dispatcher.pause();
      try {
        expect((await send('twin from the queue')).body.code).toBe(200);
      } finally {
        herald.server.ctx.dispatcher.resume();
      }
      expect(await herald.server.ctx.dispatcher.runDue()).toBeGreaterThanOrEqual(1);
    } finally {
      herald.server.ctx.events.off('message', onMessage);
    }

    expect(announced.map((m) => m.title)).toEqual(['twin at accept', 'twin from the queue']);
    const sameness = ({ id: _id, title: _t, createdAt: _c, ...rest }: any) => rest;
    expect(sameness(announced[0])).toEqual({
      content: '**db-1** down',
      format: 'markdown',
      url: 'https://status.example/db-1',
      priority: 4,
    });
    expect(sameness(announced[1])).toEqual(sameness(announced[0]));
    for (const m of announced) {
      const stored = await herald.console.ok('GET', `/messages/${m.id}`);
      expect(stored).toMatchObject({ channelId: hostedId, ...sameness(m) });
      expect(stored.previewUrl).toEqual(expect.any(String));
      const [delivery] = (await logOf(m.title)).deliveries;
      expect(delivery.reply).toBe(`stored as hosted message ${m.id}`);
    }
  });

  it('while deliveries are paused, hosted messages wait in the queue like the rest', async () => {
    const { token } = await herald.createTemplate({ text: 'paused' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    herald.server.ctx.dispatcher.pause();
    try {
      const res = await herald.sendV2({ token, title: 'held while paused' });
      expect(res.body.code).toBe(200);
      expect(await messagesTitled('held while paused')).toEqual([]);
      const log = await logOf('held while paused');
      expect(log.deliveries[0].status).toBe('queued');
    } finally {
      herald.server.ctx.dispatcher.resume();
    }
    // Resumed: the queue delivers it (the dispatcher is not running here, so run it once).
    expect(await herald.server.ctx.dispatcher.runDue()).toBeGreaterThanOrEqual(1);
    expect(await messagesTitled('held while paused')).toEqual(['held while paused']);
  });
});
