import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { LIMITS } from '../../../contract';
import { Delivery, Send } from '../../../server/db/models';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { ManualClock } from '../../helpers/manual-clock';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

describe('documented limits of the send APIs', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let taskToken: string;

  beforeAll(async () => {
    herald = await startTestHerald();
    peer = await startHttpPeer();
    const hook = await herald.createChannel('webhook', { url: `${peer.url}/limits` });
    ({ token: taskToken } = await herald.createTask('limits', [
      { channelId: hook.id, contentType: 'text' },
    ]));
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const v1 = (fields: Record<string, unknown>) =>
    herald.sendV1({ token: taskToken, title: 'limits', mode: 'async', ...fields });

  it('sendV1() takes 200,000 characters of content and refuses one more, naming the field', async () => {
    expect(LIMITS.contentChars).toBe(200_000);
    const atLimit = await v1({ text: 'x'.repeat(200_000) });
    expect(atLimit.body.code).toBe(200);

    const before = await Send.count();
    const over = await v1({ text: 'x'.repeat(200_001) });
    expect(over.status).toBe(400);
    expect(over.body.msg).toContain('text');
    expect(over.body.msg).toContain('200000');
    expect(await Send.count()).toBe(before);
  });

  it('sendV1() takes 100 mentions and refuses 101', async () => {
    const mobiles = (n: number) =>
      Array.from({ length: n }, (_, i) => `1380000${String(i).padStart(4, '0')}`);
    const atLimit = await v1({ text: 'm', at_mobiles: mobiles(100) });
    expect(atLimit.body.code).toBe(200);

    const over = await v1({ text: 'm', at_mobiles: mobiles(101) });
    expect(over.status).toBe(400);
    expect(over.body.msg).toContain('at_mobiles');
  });

  it('sendV1() takes a 2,048-character url and refuses 2,049', async () => {
    const url = (n: number) => {
      const base = 'https://example.com/';
      return base + 'p'.repeat(n - base.length);
    };
    expect(url(2048)).toHaveLength(2048);
    const atLimit = await v1({ text: 'u', url: url(2048) });
    expect(atLimit.body.code).toBe(200);

    const over = await v1({ text: 'u', url: url(2049) });
    expect(over.status).toBe(400);
    expect(over.body.msg).toContain('url');
  });
});

describe('deliveries paused and resumed', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let token: string;

  beforeAll(async () => {
    herald = await startTestHerald();
    peer = await startHttpPeer();
    const hook = await herald.createChannel('webhook', { url: `${peer.url}/paused` });
    ({ token } = await herald.createTemplate({ text: 'while paused' }, [
      { channelId: hook.id, contentType: 'text' },
    ]));
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('pause() holds accepted sends back and resume() delivers every one of them', async () => {
    herald.server.deliveries.pause();
    expect(herald.server.deliveries.paused).toBe(true);
    const status = await herald.console.ok('GET', '/status');
    expect(status).toBeDefined();

    for (let i = 0; i < 3; i++) {
      const r = await herald.sendV2({ token, title: `paused ${i}` });
      expect(r.body.code).toBe(200);
    }
    // Long enough for an unpaused dispatcher to have delivered all three several times over.
    await new Promise((r) => setTimeout(r, 500));
    expect(peer.received).toHaveLength(0);
    const queued = await Delivery.findAll();
    expect(queued).toHaveLength(3);
    expect(queued.every((d) => d.status !== 'sent')).toBe(true);

    herald.server.deliveries.resume();
    expect(herald.server.deliveries.paused).toBe(false);
    const got = await peer.waitForRequests(3);
    expect(new Set(got.map((r) => (r.json as any).title))).toEqual(
      new Set(['paused 0', 'paused 1', 'paused 2']),
    );
    await herald.waitFor(async () => (await Delivery.count({ where: { status: 'sent' } })) === 3);
  });
});

describe('V1 answers that come after the wait', () => {
  let herald: TestHerald;
  let peer: HttpPeer;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { v1WaitMs: 300 } });
    peer = await startHttpPeer();
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('sendV1() answers "queued" when the first attempt outlasts the wait, and the delivery still completes', async () => {
    // The first attempt hangs past the V1 wait, times out after 1 s and is retried.
    const hook = await herald.createChannel('webhook', {
      url: `${peer.url}/slow`,
      timeoutMs: 1000,
    });
    const { token } = await herald.createTask('slow', [
      { channelId: hook.id, contentType: 'text' },
    ]);
    peer.script.push('hang');

    const answer = await herald.sendV1({ token, title: 'slow one', text: 'x' });
    expect(answer.body.code).toBe(200);
    expect(answer.body.data.status).toBe('queued');
    await peer.waitForRequests(1);
    const delivery = await Delivery.findOne({ order: [['id', 'DESC']] });
    expect(delivery!.status).toBe('sending');

    await peer.waitForRequests(2);
    const done = await herald.waitFor(async () => {
      const d = await Delivery.findByPk(delivery!.id);
      return d?.status === 'sent' ? d : null;
    });
    expect(done.attempts).toBe(2);
  });
});

describe('Idempotency-Key window', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    herald = await startTestHerald({ clock });
    peer = await startHttpPeer();
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('withIdempotency() replays within 24 hours and sends again after them', async () => {
    const hook = await herald.createChannel('webhook', { url: `${peer.url}/idem` });
    const { token } = await herald.createTemplate({ text: 'once a day' }, [
      { channelId: hook.id, contentType: 'text' },
    ]);
    const headers = { 'Idempotency-Key': 'daily-report' };
    const first = await herald.sendV2({ token, title: 'daily' }, headers);
    expect(first.body.code).toBe(200);

    clock.advance(24 * 60 * 60_000 - 60_000);
    const replay = await herald.sendV2({ token, title: 'daily' }, headers);
    expect(replay.body).toEqual(first.body);
    expect(await Send.count({ where: { title: 'daily' } })).toBe(1);

    clock.advance(2 * 60_000);
    const again = await herald.sendV2({ token, title: 'daily' }, headers);
    expect(again.body.code).toBe(200);
    expect(await Send.count({ where: { title: 'daily' } })).toBe(2);
    await peer.waitForRequests(2);
  });
});
