import { afterEach, describe, expect, it } from 'vitest';

import {
  PUSHPLUS_TIMESTAMP_GRACE_MS,
  createPushPlusAdapter,
  pushPlusConfigSchema,
} from '../../../server/channels/pushplus';
import { chinaDay, memoryDayCounts, nextChinaMidnight } from '../../../server/channels/day-counts';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import { startPushPlusPeer, type PushPlusPeer } from '../../fixtures/peers/pushplus-peer';

describe('PushPlus adapter against a local PushPlus', () => {
  const adapter = createPushPlusAdapter();
  let peer: PushPlusPeer;

  afterEach(async () => {
    await peer?.close();
  });

  async function setUp(extra: Record<string, unknown> = {}, peerOptions = {}) {
    // 2026-01-15 09:00 UTC: 17:00 in China, seven hours before its midnight.
    const clock = manualClock();
    peer = await startPushPlusPeer({ now: clock.now, ...peerOptions });
    const services = { ...adapterRuntime(clock), dayCounts: memoryDayCounts() };
    const config = pushPlusConfigSchema.parse({
      token: peer.token,
      baseUrl: peer.baseUrl,
      ...extra,
    });
    const send = (overrides: Parameters<typeof outboundMessage>[0] = {}, cfg = config) =>
      adapter.send(cfg, outboundMessage(overrides), services);
    return { clock, config, send, services };
  }

  it('posts token, title, content, template and a timestamp, and keeps the serial number', async () => {
    const { send, clock } = await setUp({ topic: 'ops', channel: 'wechat' });
    const receipt = await send({ contentType: 'markdown', content: '**web-3** at 98%' });
    expect(peer.received).toEqual([
      {
        token: peer.token,
        title: 'Disk alert',
        content: '**web-3** at 98%',
        template: 'markdown',
        topic: 'ops',
        channel: 'wechat',
        timestamp: clock.now() + PUSHPLUS_TIMESTAMP_GRACE_MS,
        serial: 'pp00000001',
      },
    ]);
    expect(receipt.reply).toMatch(/^serial pp00000001; HTTP 200 .*"code":200/);
  });

  it('renders each format with its own template, or the one the channel names', async () => {
    const { send, config } = await setUp();
    await send({ contentType: 'text', content: 'a <b> stays text' });
    await send({ contentType: 'html', content: '<b>bold</b>', url: 'https://x.example/?a=1&b=2' });
    await send({ contentType: 'markdown', content: '# head', url: 'https://x.example/1' });
    await send({ contentType: 'text', content: '{"disk":98}' }, { ...config, template: 'json' });
    expect(peer.received.map((m) => [m.template, m.content])).toEqual([
      ['txt', 'a <b> stays text'],
      [
        'html',
        '<b>bold</b>\n\n<p><a href="https://x.example/?a=1&amp;b=2">https://x.example/?a=1&amp;b=2</a></p>',
      ],
      ['markdown', '# head\n\n[https://x.example/1](https://x.example/1)'],
      ['json', '{"disk":98}'],
    ]);
  });

  it('cuts the title to 100 characters, which PushPlus refuses past', async () => {
    const { send } = await setUp();
    await send({ title: '告'.repeat(150) });
    expect([...peer.received[0].title]).toHaveLength(100);
  });

  it('sends to the delivery’s recipient (dynamic recipients) over the channel’s friends', async () => {
    const { send } = await setUp({ to: 'friend-a,friend-b' });
    await send();
    await send({ recipient: 'friend-c' });
    expect(peer.received.map((m) => m.to)).toEqual(['friend-a,friend-b', 'friend-c']);
    expect(adapter.supportsDynamicRecipients).toBe(true);
    expect(adapter.validateRecipient?.('friend-c')).toBeNull();
    expect(adapter.validateRecipient?.('a,b')).toMatch(/not a PushPlus friend token/);
  });

  it('a priority changes nothing: PushPlus has none', async () => {
    const { send } = await setUp();
    await send({ priority: 1 });
    await send({ priority: 5 });
    const [low, high] = peer.received;
    expect({ ...low, serial: '', timestamp: 0 }).toEqual({ ...high, serial: '', timestamp: 0 });
  });

  it('a message held up past its timestamp is dropped by PushPlus, as documented', async () => {
    const { send, clock, services, config } = await setUp();
    // The peer's clock runs ahead of the adapter's by more than the grace.
    const late = {
      ...services,
      clock: { now: () => clock.now() - PUSHPLUS_TIMESTAMP_GRACE_MS - 1 },
    };
    await adapter.send(config, outboundMessage(), late);
    await send();
    expect(peer.dropped).toHaveLength(1);
    expect(peer.received).toHaveLength(1);
  });

  it('classifies every return code: 903, 905, 888 and 999 permanent, 500 transient', async () => {
    const { send, config } = await setUp({}, { unverified: ['unverified'], noCredits: ['poor'] });
    const bad = await rejectionOf(send({}, { ...config, token: 'not-a-token' }));
    expect(bad).toMatchObject({ retryable: false, deferUntil: undefined });
    expect(bad.message).toContain('code 903');
    expect(bad.message).toContain('user centre');
    const unverified = await rejectionOf(send({}, { ...config, token: 'unverified' }));
    expect(unverified.retryable).toBe(false);
    expect(unverified.message).toContain('code 905');
    const poor = await rejectionOf(send({}, { ...config, token: 'poor' }));
    expect(poor.retryable).toBe(false);
    expect(poor.message).toContain('code 888');
    const invalid = await rejectionOf(send({ content: '', title: '' }));
    expect(invalid.retryable).toBe(false);
    expect(invalid.message).toContain('code 999');
    peer.script({ status: 200, body: { code: 500, msg: '系统异常', data: null } });
    expect((await rejectionOf(send())).retryable).toBe(true);
    peer.script({ status: 502, body: 'Bad Gateway' });
    expect((await rejectionOf(send())).retryable).toBe(true);
    expect(peer.received).toHaveLength(0);
  });

  it('900 stops the channel until midnight China time, without spending an attempt', async () => {
    const { send, clock } = await setUp({}, { dailyRequests: 2 });
    await send();
    await send();
    const midnight = nextChinaMidnight(clock.now());
    const throttled = await rejectionOf(send());
    expect(throttled.deferUntil).toBe(midnight);
    expect(throttled.message).toContain('code 900');
    expect(throttled.message).toContain('midnight, China time');
    // The rest of the day waits without asking PushPlus again.
    const requests = peer.requests;
    expect((await rejectionOf(send())).deferUntil).toBe(midnight);
    expect(peer.requests).toBe(requests);
    clock.advance(midnight - clock.now());
    await send();
    expect(peer.received).toHaveLength(3);
  });

  it('holds to the daily limit: past it, sends wait for the next day (China time)', async () => {
    const { send, clock, services } = await setUp({ dailyLimit: 2 });
    await send();
    await send();
    const midnight = nextChinaMidnight(clock.now());
    const waiting = await rejectionOf(send());
    expect(waiting.deferUntil).toBe(midnight);
    expect(waiting.message).toContain('daily limit reached: 2 of 2');
    expect(peer.received).toHaveLength(2);
    // 15:59:59.999 UTC is still the same day in China; 16:00 UTC is the next.
    clock.advance(midnight - clock.now() - 1);
    expect((await rejectionOf(send())).deferUntil).toBe(midnight);
    clock.advance(1);
    await send();
    expect(peer.received).toHaveLength(3);
    expect(await services.dayCounts.take(1, chinaDay(clock.now()), 2)).toMatchObject({
      taken: true,
      sent: 2,
    });
  });

  it('a refused message gives its send back; one that got no answer stays counted', async () => {
    const { send, config } = await setUp({ dailyLimit: 1, timeoutMs: 300 });
    await rejectionOf(send({}, { ...config, token: 'not-a-token' }));
    await send();
    expect(peer.received).toHaveLength(1);
    expect((await rejectionOf(send())).deferUntil).toBeDefined();
    await peer.close();
    const fresh = await setUp({ dailyLimit: 1, timeoutMs: 300 });
    peer.script('hang');
    expect((await rejectionOf(fresh.send())).message).toContain('timed out');
    expect((await rejectionOf(fresh.send())).deferUntil).toBeDefined();
  });

  it('a channel not saved yet (a test from the form) has no count', async () => {
    const { send } = await setUp({ dailyLimit: 1 });
    await send({ channelId: 0 });
    await send({ channelId: 0 });
    expect(peer.received).toHaveLength(2);
  });
});

describe('China days', () => {
  it('a day runs from 16:00 UTC to 16:00 UTC', () => {
    expect(chinaDay(Date.parse('2026-03-01T15:59:59.999Z'))).toBe('2026-03-01');
    expect(chinaDay(Date.parse('2026-03-01T16:00:00.000Z'))).toBe('2026-03-02');
    expect(nextChinaMidnight(Date.parse('2026-03-01T15:59:59.999Z'))).toBe(
      Date.parse('2026-03-01T16:00:00.000Z'),
    );
    expect(nextChinaMidnight(Date.parse('2026-03-01T16:00:00.000Z'))).toBe(
      Date.parse('2026-03-02T16:00:00.000Z'),
    );
  });
});
