import { afterEach, describe, expect, it } from 'vitest';

import { DeliveryError } from '../../../server/channels/delivery-error';
import { buildDingTalkBody, createDingTalkAdapter } from '../../../server/channels/dingtalk';
import { startConnectProxy, type ConnectProxy } from '../../fixtures/peers/connect-proxy';
import { startDingTalkPeer, type DingTalkPeer } from '../../fixtures/peers/dingtalk-peer';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';

const SECRET = 'SECtestsecret0123456789abcdef';
const mentions = { mobiles: ['13800000000'], userIds: ['user123'], all: false };

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(DeliveryError);
    return err as DeliveryError;
  }
  throw new Error('expected the send to fail');
}

describe('DingTalk adapter against a local robot', () => {
  const adapter = createDingTalkAdapter();
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: DingTalkPeer;
  let proxy: ConnectProxy | undefined;

  afterEach(async () => {
    await peer?.close();
    await proxy?.close();
    proxy = undefined;
  });

  it('send() delivers a text message with @mentions', async () => {
    peer = await startDingTalkPeer({ now: clock.now });
    const receipt = await adapter.send(
      { webhookUrl: peer.url },
      outboundMessage({ mentions }),
      services,
    );
    expect(receipt.reply).toContain('"errcode":0');
    expect(peer.received).toHaveLength(1);
    expect(peer.received[0].body).toMatchObject({
      msgtype: 'text',
      text: { content: 'Disk alert\nweb-3 at 98%\n@13800000000 @user123' },
      at: { atMobiles: ['13800000000'], atUserIds: ['user123'], isAtAll: false },
    });
  });

  it('send() delivers markdown whose mentions fire because the handles are in the text', async () => {
    peer = await startDingTalkPeer({ now: clock.now });
    await adapter.send(
      { webhookUrl: peer.url },
      outboundMessage({ contentType: 'markdown', content: '> **98%** used', mentions }),
      services,
    );
    const [delivered] = peer.received;
    expect(delivered.body.markdown).toEqual({
      title: 'Disk alert',
      text: '### Disk alert\n\n> **98%** used\n\n@13800000000 @user123',
    });
    expect(delivered.firedMentions).toEqual(['13800000000', 'user123']);
  });

  it('send() signs requests so a robot with a secret accepts them', async () => {
    peer = await startDingTalkPeer({ secret: SECRET, now: clock.now });
    await adapter.send({ webhookUrl: peer.url, secret: SECRET }, outboundMessage(), services);
    expect(peer.received).toHaveLength(1);
  });

  it('send() fails permanently with errcode 310000 when the secret is wrong', async () => {
    peer = await startDingTalkPeer({ secret: SECRET, now: clock.now });
    const err = await failure(
      adapter.send({ webhookUrl: peer.url, secret: 'SECwrong' }, outboundMessage(), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('errcode 310000 sign not match');
    expect(err.reply).toContain('sign not match');
    expect(peer.received).toHaveLength(0);
  });

  it('send() fails permanently when the robot is signed but the channel has no secret', async () => {
    peer = await startDingTalkPeer({ secret: SECRET, now: clock.now });
    const err = await failure(adapter.send({ webhookUrl: peer.url }, outboundMessage(), services));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('errcode 310000');
  });

  it('send() fails permanently when the clock is more than an hour off the robot', async () => {
    const robotClock = manualClock(clock.now() + 2 * 3_600_000);
    peer = await startDingTalkPeer({ secret: SECRET, now: robotClock.now });
    const err = await failure(
      adapter.send({ webhookUrl: peer.url, secret: SECRET }, outboundMessage(), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('invalid timestamp');
  });

  it('send() fails permanently with errcode 300001 when the access_token is unknown', async () => {
    peer = await startDingTalkPeer({ now: clock.now });
    const err = await failure(
      adapter.send(
        { webhookUrl: peer.url.replace(/access_token=[^&]+/, 'access_token=nope') },
        outboundMessage(),
        services,
      ),
    );
    expect(err).toMatchObject({ retryable: false });
    expect(err.message).toContain('errcode 300001');
  });

  it('send() fails permanently when the robot keyword is missing and passes when present', async () => {
    peer = await startDingTalkPeer({ keywords: ['告警'], now: clock.now });
    const err = await failure(adapter.send({ webhookUrl: peer.url }, outboundMessage(), services));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('keywords not in content');
    await adapter.send(
      { webhookUrl: peer.url },
      outboundMessage({ title: '磁盘告警', contentType: 'markdown' }),
      services,
    );
    expect(peer.received).toHaveLength(1);
  });

  it('send() fails transiently on HTTP 500 and on system busy, then succeeds', async () => {
    peer = await startDingTalkPeer({ now: clock.now });
    peer.failNext(1, 'http500');
    peer.failNext(1, 'busy');
    const config = { webhookUrl: peer.url };
    const message = outboundMessage();
    expect((await failure(adapter.send(config, message, services))).retryable).toBe(true);
    const busy = await failure(adapter.send(config, message, services));
    expect(busy.retryable).toBe(true);
    expect(busy.message).toContain('errcode -1');
    await adapter.send(config, message, services);
    expect(peer.received).toHaveLength(1);
  });

  it('send() fails transiently with a 10-minute wait when the robot rate limit is hit', async () => {
    peer = await startDingTalkPeer({ now: clock.now });
    const config = { webhookUrl: peer.url };
    for (let i = 0; i < 20; i++) await adapter.send(config, outboundMessage(), services);
    const err = await failure(adapter.send(config, outboundMessage(), services));
    expect(err).toMatchObject({ retryable: true, retryAfterMs: 600_000 });
    expect(err.message).toContain('errcode 130101');

    clock.advance(60_000);
    // Still inside DingTalk's 10-minute throttle, although the minute window has moved on.
    expect((await failure(adapter.send(config, outboundMessage(), services))).retryable).toBe(true);
    clock.advance(10 * 60_000);
    await adapter.send(config, outboundMessage(), services);
    expect(peer.received).toHaveLength(21);
  });

  it('send() is not duplicated when retried after a timeout, thanks to msgUuid', async () => {
    peer = await startDingTalkPeer({ now: clock.now });
    peer.failNext(1, 'hang');
    const config = { webhookUrl: peer.url, timeoutMs: 300 };
    const message = outboundMessage();
    const err = await failure(adapter.send(config, message, services));
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('timed out');

    await adapter.send(config, message, services);
    expect(peer.received).toHaveLength(1);
    expect(peer.duplicates).toBe(1);
  });

  it('send() passes a body of exactly 20000 bytes and refuses one byte more', async () => {
    peer = await startDingTalkPeer({ now: clock.now });
    const base = outboundMessage({ content: 'x' });
    const overhead = Buffer.byteLength(JSON.stringify(buildDingTalkBody(base))) - 1;
    const exact = { ...base, content: 'x'.repeat(20_000 - overhead) };
    expect(Buffer.byteLength(JSON.stringify(buildDingTalkBody(exact)))).toBe(20_000);
    await adapter.send({ webhookUrl: peer.url }, exact, services);
    expect(peer.received[0].bytes).toBe(20_000);

    const over = { ...exact, content: `${exact.content}x` };
    const err = await failure(adapter.send({ webhookUrl: peer.url }, over, services));
    expect(err.retryable).toBe(false);
    expect(peer.requests).toBe(1);
  });

  it('send() goes through the configured proxy', async () => {
    peer = await startDingTalkPeer({ secret: SECRET, now: clock.now });
    proxy = await startConnectProxy();
    await adapter.send(
      { webhookUrl: peer.url, secret: SECRET, proxy: proxy.url },
      outboundMessage(),
      services,
    );
    expect(proxy.tunnels).toEqual([new URL(peer.url).host]);
    expect(peer.received).toHaveLength(1);
  });
});
