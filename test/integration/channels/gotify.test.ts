import { afterEach, describe, expect, it } from 'vitest';

import { createGotifyAdapter } from '../../../server/channels/gotify';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import { startGotifyPeer, type GotifyPeer } from '../../fixtures/peers/gotify-peer';
import { adapterRuntime, outboundMessage } from '../../fixtures/peers/outbound-message';

const APP_TOKEN = 'AbCdEf.gotify-app1';

describe('Gotify adapter against a local Gotify server', () => {
  const adapter = createGotifyAdapter();
  const services = adapterRuntime();
  let peer: GotifyPeer;
  const config = (extra: Record<string, unknown> = {}) =>
    adapter.configSchema.parse({ serverUrl: peer.url, appToken: APP_TOKEN, ...extra });

  afterEach(async () => {
    await peer?.close();
  });

  it('send() posts title, message and priority with the token in X-Gotify-Key', async () => {
    peer = await startGotifyPeer({ appToken: APP_TOKEN });
    const receipt = await adapter.send(config({ priority: 8 }), outboundMessage(), services);
    expect(receipt.reply).toBe('message 1');
    expect(peer.received[0]).toMatchObject({
      title: 'Disk alert',
      message: 'web-3 at 98%',
      priority: 8,
      tokenVia: 'header',
      extras: { 'client::display': { contentType: 'text/plain' } },
    });
  });

  it('send() marks Markdown through client::display and passes the click URL', async () => {
    peer = await startGotifyPeer({ appToken: APP_TOKEN });
    await adapter.send(
      config(),
      outboundMessage({
        contentType: 'markdown',
        content: '**98%**',
        url: 'https://example.com/d',
      }),
      services,
    );
    expect(peer.received[0].extras).toEqual({
      'client::display': { contentType: 'text/markdown' },
      'client::notification': { click: { url: 'https://example.com/d' } },
    });
  });

  it('send() works behind a reverse proxy path, and an untitled message gets the app name', async () => {
    peer = await startGotifyPeer({ appToken: APP_TOKEN, basePath: '/gotify', appName: 'Backups' });
    await adapter.send(
      config({ serverUrl: `${peer.url}/` }),
      outboundMessage({ title: '' }),
      services,
    );
    expect(peer.received[0].title).toBe('Backups');
  });

  it('send() fails permanently with Gotify’s description for a wrong or client token', async () => {
    peer = await startGotifyPeer({ appToken: APP_TOKEN, clientToken: 'Cclient' });
    const err = await rejectionOf(
      adapter.send(config({ appToken: 'Cclient' }), outboundMessage(), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('HTTP 401');
    expect(err.message).toContain('valid access token');
  });

  it('send() fails permanently when the message is empty (400 message required)', async () => {
    peer = await startGotifyPeer({ appToken: APP_TOKEN });
    const err = await rejectionOf(
      adapter.send(config(), outboundMessage({ content: '' }), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("Field 'message' is required");
  });

  it('send() is transient on a server error', async () => {
    peer = await startGotifyPeer({ appToken: APP_TOKEN });
    peer.failNext({ status: 502, body: 'Bad Gateway' });
    expect((await rejectionOf(adapter.send(config(), outboundMessage(), services))).retryable).toBe(
      true,
    );
  });
});
