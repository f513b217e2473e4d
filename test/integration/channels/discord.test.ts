import { afterEach, describe, expect, it } from 'vitest';

import { createDiscordAdapter } from '../../../server/channels/discord';
import {
  DISCORD_ERRORS,
  startDiscordPeer,
  type DiscordPeer,
} from '../../fixtures/peers/discord-peer';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';

const USER = '123456789012345678';

describe('Discord adapter against a local webhook', () => {
  const adapter = createDiscordAdapter();
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: DiscordPeer;
  const config = (extra: Record<string, unknown> = {}) =>
    adapter.configSchema.parse({ webhookUrl: peer.url, ...extra });

  afterEach(async () => {
    await peer?.close();
  });

  it('send() posts with wait=true and gets the saved message back', async () => {
    peer = await startDiscordPeer({ now: clock.now });
    const receipt = await adapter.send(config({ username: 'Herald' }), outboundMessage(), services);
    expect(receipt.reply).toMatch(/^message \d+$/);
    expect(peer.received[0]).toMatchObject({
      content: '**Disk alert**\nweb-3 at 98%',
      username: 'Herald',
      wait: true,
      pinged: [],
    });
  });

  it('send() pings only the listed users and everyone, never mentions inside the content', async () => {
    peer = await startDiscordPeer({ now: clock.now });
    await adapter.send(
      config(),
      outboundMessage({ contentType: 'markdown', content: 'cc <@987654321098765432> @here' }),
      services,
    );
    expect(peer.received[0].pinged).toEqual([]);
    await adapter.send(
      config(),
      outboundMessage({
        contentType: 'markdown',
        mentions: { mobiles: [], userIds: [USER, 'user123'], all: true },
      }),
      services,
    );
    expect(peer.received[1].pinged).toEqual([USER, 'everyone']);
  });

  it('send() posts into the configured thread', async () => {
    peer = await startDiscordPeer({ now: clock.now });
    await adapter.send(config({ threadId: '998877665544332211' }), outboundMessage(), services);
    expect(peer.received[0].threadId).toBe('998877665544332211');
  });

  it('send() refuses content over 2000 characters before posting, and sends exactly 2000', async () => {
    peer = await startDiscordPeer({ now: clock.now });
    const err = await rejectionOf(
      adapter.send(
        config(),
        outboundMessage({ title: '', contentType: 'markdown', content: 'x'.repeat(2001) }),
        services,
      ),
    );
    expect(err.retryable).toBe(false);
    expect(peer.requests).toBe(0);
    await adapter.send(
      config(),
      outboundMessage({ title: '', contentType: 'markdown', content: 'x'.repeat(2000) }),
      services,
    );
    expect(peer.received[0].content).toHaveLength(2000);
  });

  it('send() fails permanently for a deleted webhook (10015) or a wrong token (50027)', async () => {
    peer = await startDiscordPeer({ now: clock.now });
    const gone = await rejectionOf(
      adapter.send(
        config({ webhookUrl: peer.url.replace('112233445566778899', '100000000000000001') }),
        outboundMessage(),
        services,
      ),
    );
    expect(gone.retryable).toBe(false);
    expect(gone.message).toContain('Unknown Webhook (code 10015)');
    const token = await rejectionOf(
      adapter.send(config({ webhookUrl: `${peer.url}x` }), outboundMessage(), services),
    );
    expect(token.message).toContain('Invalid Webhook Token');
    peer.failNext(DISCORD_ERRORS.emptyMessage);
    expect(
      (await rejectionOf(adapter.send(config(), outboundMessage(), services))).message,
    ).toContain('50006');
  });

  it('send() fails permanently when Discord refuses the username', async () => {
    peer = await startDiscordPeer({ now: clock.now });
    const err = await rejectionOf(
      adapter.send(config({ username: 'Discord bot' }), outboundMessage(), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('Invalid Form Body (code 50035)');
  });

  it('send() honours Retry-After on 429, and retry_after in the body when the header is missing', async () => {
    peer = await startDiscordPeer({ now: clock.now, rateLimit: { max: 1, perMs: 2_000 } });
    await adapter.send(config(), outboundMessage(), services);
    const limited = await rejectionOf(adapter.send(config(), outboundMessage(), services));
    expect(limited.retryable).toBe(true);
    expect(limited.retryAfterMs).toBe(2_000);
    peer.rateLimitNext(1.25, { header: false });
    const bodyOnly = await rejectionOf(adapter.send(config(), outboundMessage(), services));
    expect(bodyOnly.retryAfterMs).toBe(1_250);
  });
});
