import { afterEach, describe, expect, it } from 'vitest';

import { createFeishuAdapter } from '../../../server/channels/feishu';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import {
  FEISHU_RATE_LIMITED,
  startFeishuPeer,
  type FeishuPeer,
} from '../../fixtures/peers/feishu-peer';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';

const SECRET = 'feishu-signing-secret';
const OPEN_ID = 'ou_7d8a6e6df7621556ce0d21922b676706ccs';

describe('Feishu adapter against a local bot', () => {
  const adapter = createFeishuAdapter();
  const config = (raw: Record<string, unknown>) => adapter.configSchema.parse(raw);
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: FeishuPeer;

  afterEach(async () => {
    await peer?.close();
  });

  it('send() delivers a text message whose @mentions notify the open_id and everyone', async () => {
    peer = await startFeishuPeer({ now: clock.now });
    const receipt = await adapter.send(
      config({ webhookUrl: peer.url }),
      outboundMessage({
        mentions: { mobiles: ['13800000000'], userIds: [OPEN_ID, 'dingtalk-user'], all: true },
      }),
      services,
    );
    expect(receipt.reply).toContain('"code":0');
    expect(peer.received).toHaveLength(1);
    expect(peer.received[0].msgType).toBe('text');
    expect(peer.received[0].text).toContain('Disk alert\nweb-3 at 98%');
    expect(peer.received[0].mentioned).toEqual([OPEN_ID, 'all']);
  });

  it('send() delivers Markdown as a card with the title as header and card-style @mentions', async () => {
    peer = await startFeishuPeer({ now: clock.now });
    await adapter.send(
      config({ webhookUrl: peer.url }),
      outboundMessage({
        contentType: 'markdown',
        content: '**web-3** at 98%',
        mentions: { mobiles: [], userIds: [OPEN_ID], all: false },
      }),
      services,
    );
    const card = peer.received[0].body.card as {
      header: unknown;
      elements: Array<{ tag: string; content: string }>;
    };
    expect(peer.received[0].msgType).toBe('interactive');
    expect(card.header).toEqual({
      title: { tag: 'plain_text', content: 'Disk alert' },
      template: 'blue',
    });
    expect(card.elements[0]).toEqual({
      tag: 'markdown',
      content: `**web-3** at 98%\n<at id=${OPEN_ID}></at>`,
    });
    expect(peer.received[0].mentioned).toEqual([OPEN_ID]);
  });

  it('send() signs with the timestamp in seconds and the bot accepts it', async () => {
    peer = await startFeishuPeer({ secret: SECRET, now: clock.now });
    await adapter.send(
      config({ webhookUrl: peer.url, secret: SECRET }),
      outboundMessage(),
      services,
    );
    expect(peer.received).toHaveLength(1);
    expect(peer.received[0].body.timestamp).toBe(String(Math.floor(clock.now() / 1000)));
  });

  it('send() fails permanently with 19021 when the secret is wrong or the clock is off by over an hour', async () => {
    peer = await startFeishuPeer({ secret: SECRET, now: clock.now });
    const wrong = await rejectionOf(
      adapter.send(config({ webhookUrl: peer.url, secret: 'other' }), outboundMessage(), services),
    );
    expect(wrong.retryable).toBe(false);
    expect(wrong.message).toContain('19021');
    const skewed = manualClock(clock.now() - 3_601_000);
    const stale = await rejectionOf(
      adapter.send(
        config({ webhookUrl: peer.url, secret: SECRET }),
        outboundMessage(),
        adapterRuntime(skewed),
      ),
    );
    expect(stale.message).toContain('clock');
    const unsigned = await rejectionOf(
      adapter.send(config({ webhookUrl: peer.url }), outboundMessage(), services),
    );
    expect(unsigned.message).toContain('19021');
    expect(peer.received).toHaveLength(0);
  });

  it('send() fails permanently with 19024 when the keyword is missing, and passes when the title has it', async () => {
    peer = await startFeishuPeer({ keywords: ['[herald]'], now: clock.now });
    const err = await rejectionOf(
      adapter.send(config({ webhookUrl: peer.url }), outboundMessage(), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('keyword');
    await adapter.send(
      config({ webhookUrl: peer.url }),
      outboundMessage({ title: '[herald] Disk alert', contentType: 'markdown' }),
      services,
    );
    expect(peer.received).toHaveLength(1);
  });

  it('send() is transient when the bot is over 5 messages a second (11232)', async () => {
    peer = await startFeishuPeer({ now: clock.now });
    const cfg = config({ webhookUrl: peer.url });
    for (let i = 0; i < 5; i++) await adapter.send(cfg, outboundMessage(), services);
    const err = await rejectionOf(adapter.send(cfg, outboundMessage(), services));
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('11232');
    clock.advance(1_000);
    await adapter.send(cfg, outboundMessage(), services);
    expect(peer.received).toHaveLength(6);
  });

  it('send() is transient on a scripted rate limit or HTTP 500, permanent on an unknown token', async () => {
    peer = await startFeishuPeer({ now: clock.now });
    peer.failNext(FEISHU_RATE_LIMITED);
    peer.failNext({ status: 500, body: 'upstream error' });
    const cfg = config({ webhookUrl: peer.url });
    expect((await rejectionOf(adapter.send(cfg, outboundMessage(), services))).retryable).toBe(
      true,
    );
    expect((await rejectionOf(adapter.send(cfg, outboundMessage(), services))).retryable).toBe(
      true,
    );
    const unknown = await rejectionOf(
      adapter.send(
        config({ webhookUrl: peer.url.replace(/[^/]+$/, 'nope') }),
        outboundMessage(),
        services,
      ),
    );
    expect(unknown.retryable).toBe(false);
    expect(unknown.message).toContain('19001');
  });

  it('send() refuses a body over 20 KB before sending anything', async () => {
    peer = await startFeishuPeer({ now: clock.now });
    const err = await rejectionOf(
      adapter.send(
        config({ webhookUrl: peer.url }),
        outboundMessage({ content: '字'.repeat(7000) }),
        services,
      ),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('20000');
    expect(peer.requests).toBe(0);
  });
});
