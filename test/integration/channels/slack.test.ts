import { afterEach, describe, expect, it } from 'vitest';

import { createSlackAdapter } from '../../../server/channels/slack';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import { startSlackPeer, type SlackPeer } from '../../fixtures/peers/slack-peer';

describe('Slack adapter against a local incoming webhook', () => {
  const adapter = createSlackAdapter();
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: SlackPeer;
  const config = (url = peer.url) => adapter.configSchema.parse({ webhookUrl: url });

  afterEach(async () => {
    await peer?.close();
  });

  it('send() posts escaped plain text with mrkdwn off and gets "ok"', async () => {
    peer = await startSlackPeer({ now: clock.now });
    const receipt = await adapter.send(
      config(),
      outboundMessage({ content: '*lit* <b> & co' }),
      services,
    );
    expect(receipt.reply).toBe('HTTP 200 ok');
    expect(peer.received[0]).toMatchObject({
      text: 'Disk alert\n*lit* &lt;b&gt; &amp; co',
      mrkdwn: false,
      mentions: [],
    });
  });

  it('send() posts Markdown as mrkdwn and notifies Slack member ids and the channel', async () => {
    peer = await startSlackPeer({ now: clock.now });
    await adapter.send(
      config(),
      outboundMessage({
        contentType: 'markdown',
        content: '**98%** on [web-3](https://example.com/w3)',
        mentions: { mobiles: ['13800000000'], userIds: ['U024BE7LH', 'user123'], all: true },
      }),
      services,
    );
    expect(peer.received[0]).toMatchObject({
      text: '*Disk alert*\n*98%* on <https://example.com/w3|web-3>\n<@U024BE7LH> <!channel>',
      mrkdwn: true,
      mentions: ['U024BE7LH', 'channel'],
    });
  });

  it('send() decodes named and numeric references in Markdown, so Slack shows the characters', async () => {
    peer = await startSlackPeer({ now: clock.now });
    await adapter.send(
      config(),
      outboundMessage({
        contentType: 'markdown',
        content: 'Caf&eacute; &copy; &#169; &#x1F600; &amp;lt; `&eacute;`',
      }),
      services,
    );
    // `&amp;lt;` names the text "&lt;", and a code span keeps its references as written.
    expect(peer.received[0].text).toBe('*Disk alert*\nCafé © © 😀 &amp;lt; `&amp;eacute;`');
    expect(peer.received[0].shownText).toBe('*Disk alert*\nCafé © © 😀 &lt; `&eacute;`');
  });

  it('send() shows references in a text message as the characters typed', async () => {
    peer = await startSlackPeer({ now: clock.now });
    await adapter.send(config(), outboundMessage({ content: 'Caf&eacute; &#169;' }), services);
    expect(peer.received[0]).toMatchObject({
      shownText: 'Disk alert\nCaf&eacute; &#169;',
      mrkdwn: false,
    });
  });

  it('send() fails permanently on a removed webhook or an archived channel', async () => {
    peer = await startSlackPeer({ now: clock.now });
    const removed = await rejectionOf(
      adapter.send(config(`${peer.url}x`), outboundMessage(), services),
    );
    expect(removed.retryable).toBe(false);
    expect(removed.message).toContain('HTTP 404: no_service');
    await peer.close();
    peer = await startSlackPeer({ now: clock.now, archived: true });
    const archived = await rejectionOf(adapter.send(config(), outboundMessage(), services));
    expect(archived.message).toContain('channel_is_archived');
  });

  it('send() honours Retry-After when the webhook is over its rate', async () => {
    peer = await startSlackPeer({
      now: clock.now,
      rateLimit: { max: 1, perMs: 1_000, retryAfterSeconds: 1 },
    });
    await adapter.send(config(), outboundMessage(), services);
    const err = await rejectionOf(adapter.send(config(), outboundMessage(), services));
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(1_000);
    peer.rateLimitNext(30);
    expect(
      (await rejectionOf(adapter.send(config(), outboundMessage(), services))).retryAfterMs,
    ).toBe(30_000);
  });

  it('send() is transient on a Slack server error', async () => {
    peer = await startSlackPeer({ now: clock.now });
    peer.failNext({ status: 500, body: 'rollup_error' });
    const err = await rejectionOf(adapter.send(config(), outboundMessage(), services));
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('rollup_error');
  });
});
