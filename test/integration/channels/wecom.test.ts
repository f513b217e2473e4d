import { afterEach, describe, expect, it } from 'vitest';

import { DeliveryError } from '../../../server/channels/delivery-error';
import { createWeComAdapter } from '../../../server/channels/wecom';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import { startWeComPeer, type WeComPeer } from '../../fixtures/peers/wecom-peer';

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(DeliveryError);
    return err as DeliveryError;
  }
  throw new Error('expected the send to fail');
}

describe('WeCom adapter against a local robot', () => {
  const adapter = createWeComAdapter();
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: WeComPeer;

  afterEach(async () => {
    await peer?.close();
  });

  it('send() delivers text with mention lists inside the text object', async () => {
    peer = await startWeComPeer({ now: clock.now });
    const receipt = await adapter.send(
      { webhookUrl: peer.url },
      outboundMessage({ mentions: { mobiles: ['13800000000'], userIds: ['zhangsan'], all: true } }),
      services,
    );
    expect(receipt.reply).toContain('"errcode":0');
    expect(peer.received).toEqual([
      {
        msgtype: 'text',
        text: {
          content: 'Disk alert\nweb-3 at 98%',
          mentioned_list: ['zhangsan', '@all'],
          mentioned_mobile_list: ['13800000000'],
        },
      },
    ]);
  });

  it('send() delivers markdown with inline <@userid> mentions', async () => {
    peer = await startWeComPeer({ now: clock.now });
    await adapter.send(
      { webhookUrl: peer.url },
      outboundMessage({
        contentType: 'markdown',
        content: '>host: <font color="warning">web-3</font>',
        mentions: { mobiles: [], userIds: ['zhangsan'], all: false },
      }),
      services,
    );
    expect(peer.received).toEqual([
      {
        msgtype: 'markdown',
        markdown: {
          content: '### Disk alert\n\n>host: <font color="warning">web-3</font>\n\n<@zhangsan>',
        },
      },
    ]);
  });

  it('send() fails permanently with errcode 93000 when the key is unknown', async () => {
    peer = await startWeComPeer({ now: clock.now });
    const err = await failure(
      adapter.send(
        { webhookUrl: peer.url.replace(/key=.*/, 'key=not-a-robot') },
        outboundMessage(),
        services,
      ),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('errcode 93000 invalid webhook url');
    expect(err.reply).toContain('more info at');
  });

  it('send() passes text of exactly 2048 bytes and refuses longer text before sending', async () => {
    peer = await startWeComPeer({ now: clock.now });
    // "Disk alert\n" is 11 bytes; 679 three-byte characters make 2037 more.
    const exact = outboundMessage({ content: '满'.repeat(679) });
    await adapter.send({ webhookUrl: peer.url }, exact, services);
    expect(peer.received).toHaveLength(1);

    const err = await failure(
      adapter.send({ webhookUrl: peer.url }, { ...exact, content: `${exact.content}x` }, services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('2049 bytes');
    expect(peer.requests).toBe(1);
  });

  it('send() passes markdown up to 4096 bytes', async () => {
    peer = await startWeComPeer({ now: clock.now });
    // "### Disk alert\n\n" is 16 bytes.
    await adapter.send(
      { webhookUrl: peer.url },
      outboundMessage({ contentType: 'markdown', content: 'm'.repeat(4080) }),
      services,
    );
    expect(peer.received).toHaveLength(1);
  });

  it('send() fails transiently on HTTP 500 and on errcode -1', async () => {
    peer = await startWeComPeer({ now: clock.now });
    peer.failNext(1, 'http500');
    peer.failNext(1, 'busy');
    const config = { webhookUrl: peer.url };
    expect((await failure(adapter.send(config, outboundMessage(), services))).retryable).toBe(true);
    const busy = await failure(adapter.send(config, outboundMessage(), services));
    expect(busy.retryable).toBe(true);
    expect(busy.message).toContain('errcode -1');
    await adapter.send(config, outboundMessage(), services);
    expect(peer.received).toHaveLength(1);
  });

  it('send() fails transiently with errcode 45009 past 20 a minute, and recovers a minute later', async () => {
    peer = await startWeComPeer({ now: clock.now });
    const config = { webhookUrl: peer.url };
    for (let i = 0; i < 20; i++) await adapter.send(config, outboundMessage(), services);
    const err = await failure(adapter.send(config, outboundMessage(), services));
    expect(err).toMatchObject({ retryable: true, retryAfterMs: 60_000 });
    expect(err.message).toContain('errcode 45009');
    clock.advance(60_000);
    await adapter.send(config, outboundMessage(), services);
    expect(peer.received).toHaveLength(21);
  });
});
