import { afterEach, describe, expect, it } from 'vitest';

import { createTelegramAdapter } from '../../../server/channels/telegram';
import { startConnectProxy, type ConnectProxy } from '../../fixtures/peers/connect-proxy';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import { startTelegramPeer, type TelegramPeer } from '../../fixtures/peers/telegram-peer';

const GROUP = '-1001234567890';
const USER = '424242';

describe('Telegram adapter against a local Bot API', () => {
  const adapter = createTelegramAdapter();
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: TelegramPeer;
  let proxy: ConnectProxy | undefined;
  const config = (extra: Record<string, unknown> = {}) =>
    adapter.configSchema.parse({
      botToken: peer.token,
      chatId: GROUP,
      serverUrl: peer.url,
      ...extra,
    });

  afterEach(async () => {
    await peer?.close();
    await proxy?.close();
    proxy = undefined;
  });

  it('send() delivers a text message as written, without parse mode', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    const receipt = await adapter.send(
      config(),
      outboundMessage({ content: '<b>not bold</b> & 1 < 2' }),
      services,
    );
    expect(receipt.reply).toBe('message_id 1');
    expect(peer.received[0]).toMatchObject({
      chatId: GROUP,
      parseMode: undefined,
      visibleText: 'Disk alert\n<b>not bold</b> & 1 < 2',
    });
  });

  it('send() delivers Markdown as HTML that Telegram parses into bold, code and links', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    await adapter.send(
      config(),
      outboundMessage({
        contentType: 'markdown',
        content:
          '# Disk\n\n**web-3** at 98% & `a<b` [graph](https://example.com/?a=1&b=2)\n\n- one\n- two',
      }),
      services,
    );
    const got = peer.received[0];
    expect(got.parseMode).toBe('HTML');
    expect(got.visibleText).toBe('Disk alert\nDisk\n\nweb-3 at 98% & a<b graph\n\n• one\n• two');
    expect(got.entities).toEqual(['b', 'b', 'b', 'code', 'a href=https://example.com/?a=1&b=2']);
  });

  it('send() delivers arbitrary HTML reduced to the tags Telegram accepts', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    await adapter.send(
      config(),
      outboundMessage({
        contentType: 'html',
        content:
          '<div><p>Hello <span style="color:red">there</span><br>line two</p><img src="x.png"><table><tr><td>a</td><td>b</td></tr></table></div>',
      }),
      services,
    );
    expect(peer.received[0].visibleText).toBe('Disk alert\nHello there\nline two\n\na | b');
  });

  it('send() decodes named and numeric references in HTML and Markdown, leaving only the four Telegram knows', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    const content = 'Caf&eacute; &copy; &#169; &#x1F600; &amp;lt;';
    await adapter.send(config(), outboundMessage({ contentType: 'html', content }), services);
    await adapter.send(config(), outboundMessage({ contentType: 'markdown', content }), services);
    for (const got of peer.received) {
      // The peer refuses any named entity but &lt; &gt; &amp; &quot;, as Telegram does.
      expect(got.parseMode).toBe('HTML');
      expect(got.visibleText).toBe('Disk alert\nCafé © © 😀 &lt;');
      expect(got.text).toBe('<b>Disk alert</b>\nCafé © © 😀 &amp;lt;');
    }
    expect(peer.received).toHaveLength(2);
  });

  it('send() fails permanently with the API’s words when the chat is unknown or the token is wrong', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    const chat = await rejectionOf(
      adapter.send(config({ chatId: '-100999' }), outboundMessage(), services),
    );
    expect(chat.retryable).toBe(false);
    expect(chat.message).toContain('chat not found');
    const token = await rejectionOf(
      adapter.send(
        config({ botToken: '999:AAwrongTokenForTheLocalPeer' }),
        outboundMessage(),
        services,
      ),
    );
    expect(token.retryable).toBe(false);
    expect(token.message).toContain('Unauthorized');
  });

  it('send() honours retry_after when a private chat gets a second message within a second', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    await adapter.send(config({ chatId: USER }), outboundMessage(), services);
    const err = await rejectionOf(
      adapter.send(config({ chatId: USER }), outboundMessage(), services),
    );
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(1000);
    clock.advance(1000);
    await adapter.send(config({ chatId: USER }), outboundMessage(), services);
    expect(peer.received).toHaveLength(2);
  });

  it('send() honours a scripted flood wait', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    peer.floodNext(35);
    const err = await rejectionOf(adapter.send(config(), outboundMessage(), services));
    expect(err.retryAfterMs).toBe(35_000);
    expect(err.message).toContain('retry after 35');
  });

  it('send() refuses more than 4096 visible characters before calling the API, and sends exactly 4096', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    const err = await rejectionOf(
      adapter.send(config(), outboundMessage({ title: '', content: 'z'.repeat(4097) }), services),
    );
    expect(err.retryable).toBe(false);
    expect(peer.requests).toBe(0);
    await adapter.send(
      config(),
      outboundMessage({ title: '', contentType: 'html', content: `<b>${'z'.repeat(4096)}</b>` }),
      services,
    );
    expect(peer.received[0].visibleText).toHaveLength(4096);
  });

  it('send() passes the forum topic and silent flag, to a channel by @name', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    await adapter.send(
      config({ chatId: '@heraldnews', messageThreadId: 42, disableNotification: true }),
      outboundMessage(),
      services,
    );
    expect(peer.received[0].body).toMatchObject({
      chat_id: '@heraldnews',
      message_thread_id: 42,
      disable_notification: true,
    });
  });

  it('send() reaches a self-hosted Bot API server through the configured proxy', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    proxy = await startConnectProxy();
    await adapter.send(config({ proxy: proxy.url }), outboundMessage(), services);
    expect(proxy.tunnels).toEqual([new URL(peer.url).host]);
    expect(peer.received).toHaveLength(1);
  });

  it('send() is transient when the API does not answer in time', async () => {
    peer = await startTelegramPeer({ now: clock.now });
    peer.failNext('hang');
    const err = await rejectionOf(
      adapter.send(config({ timeoutMs: 200 }), outboundMessage(), services),
    );
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('timed out');
  });
});
