import { afterEach, describe, expect, it } from 'vitest';

import { createBarkAdapter } from '../../../server/channels/bark';
import { barkReply, startBarkPeer, type BarkPeer } from '../../fixtures/peers/bark-peer';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import { adapterRuntime, outboundMessage } from '../../fixtures/peers/outbound-message';

const KEY = 'ynJ5Ft4atkMkWeo2PAvFhF';

describe('Bark adapter against a local bark-server', () => {
  const adapter = createBarkAdapter();
  const services = adapterRuntime();
  let peer: BarkPeer;
  const config = (extra: Record<string, unknown> = {}) =>
    adapter.configSchema.parse({ serverUrl: peer.url, deviceKey: KEY, ...extra });

  afterEach(async () => {
    await peer?.close();
  });

  it('send() pushes through the V2 JSON route with its options', async () => {
    peer = await startBarkPeer({ deviceKeys: [KEY] });
    const receipt = await adapter.send(
      config({ group: 'ops', sound: 'minuet', level: 'timeSensitive' }),
      outboundMessage({ title: '磁盘告警', url: 'https://example.com/d' }),
      services,
    );
    expect(receipt.reply).toContain('"code":200');
    expect(peer.received[0]).toMatchObject({
      via: 'v2-json',
      deviceKey: KEY,
      title: '磁盘告警',
      body: 'web-3 at 98%',
    });
    expect(peer.received[0].fields).toMatchObject({
      group: 'ops',
      sound: 'minuet',
      level: 'timeSensitive',
      url: 'https://example.com/d',
    });
  });

  it('send() pushes Markdown in the markdown field with a plain body', async () => {
    peer = await startBarkPeer({ deviceKeys: [KEY] });
    await adapter.send(
      config(),
      outboundMessage({ contentType: 'markdown', content: '**web-3** at 98%' }),
      services,
    );
    expect(peer.received[0]).toMatchObject({ markdown: '**web-3** at 98%', body: 'web-3 at 98%' });
  });

  it('send() reaches a self-hosted server behind a path prefix', async () => {
    peer = await startBarkPeer({ deviceKeys: [KEY], basePath: '/bark' });
    await adapter.send(config(), outboundMessage(), services);
    expect(peer.received).toHaveLength(1);
  });

  it('send() fails permanently for an unknown device key', async () => {
    peer = await startBarkPeer({ deviceKeys: [KEY] });
    const err = await rejectionOf(
      adapter.send(config({ deviceKey: 'unknownKey123' }), outboundMessage(), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('failed to get device token');
    expect(err.message).toContain('check deviceKey');
  });

  it('send() retries a push failure but not an APNs refusal of the device', async () => {
    peer = await startBarkPeer({ deviceKeys: [KEY] });
    peer.failNext(barkReply(500, 'push failed: dial tcp: i/o timeout', Date.now()));
    peer.failNext(barkReply(500, 'push failed: Unregistered', Date.now()));
    expect((await rejectionOf(adapter.send(config(), outboundMessage(), services))).retryable).toBe(
      true,
    );
    expect((await rejectionOf(adapter.send(config(), outboundMessage(), services))).retryable).toBe(
      false,
    );
  });

  it('send() refuses a push too large for APNs without sending it', async () => {
    peer = await startBarkPeer({ deviceKeys: [KEY] });
    const err = await rejectionOf(
      adapter.send(config(), outboundMessage({ content: 'x'.repeat(4000) }), services),
    );
    expect(err.retryable).toBe(false);
    expect(peer.requests).toBe(0);
  });
});
