import { afterEach, describe, expect, it } from 'vitest';

import { createNtfyAdapter } from '../../../server/channels/ntfy';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import { NTFY_ERRORS, startNtfyPeer, type NtfyPeer } from '../../fixtures/peers/ntfy-peer';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';

describe('ntfy adapter against a local ntfy server', () => {
  const adapter = createNtfyAdapter();
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: NtfyPeer;
  const config = (extra: Record<string, unknown> = {}) =>
    adapter.configSchema.parse({ serverUrl: peer.url, topic: 'alerts', ...extra });

  afterEach(async () => {
    await peer?.close();
  });

  it('send() publishes title, priority, tags and click as JSON to the server root', async () => {
    peer = await startNtfyPeer({ now: clock.now });
    const receipt = await adapter.send(
      config({ priority: 'high', tags: 'warning,skull' }),
      outboundMessage({ title: 'Ärger', url: 'https://example.com/d' }),
      services,
    );
    expect(receipt.reply).toBe('message peer1');
    expect(peer.received[0]).toMatchObject({
      via: 'json',
      topic: 'alerts',
      title: 'Ärger',
      message: 'web-3 at 98%',
      priority: 4,
      tags: ['warning', 'skull'],
      markdown: false,
      click: 'https://example.com/d',
    });
  });

  it('send() flags Markdown bodies', async () => {
    peer = await startNtfyPeer({ now: clock.now });
    await adapter.send(
      config(),
      outboundMessage({ contentType: 'markdown', content: '**98%**' }),
      services,
    );
    expect(peer.received[0]).toMatchObject({ message: '**98%**', markdown: true });
  });

  it('send() authenticates to a protected topic with a token or a user', async () => {
    peer = await startNtfyPeer({
      now: clock.now,
      protectedTopics: { alerts: { tokens: ['tk_good'], users: { phil: 'sécret' } } },
    });
    await adapter.send(config({ token: 'tk_good' }), outboundMessage(), services);
    await adapter.send(
      config({ username: 'phil', password: 'sécret' }),
      outboundMessage(),
      services,
    );
    expect(peer.received.map((r) => r.publisher)).toEqual(['token:tk_goo', 'user:phil']);
  });

  it('send() fails permanently without credentials (403) or with wrong ones (401)', async () => {
    peer = await startNtfyPeer({
      now: clock.now,
      protectedTopics: { alerts: { tokens: ['tk_good'] } },
    });
    const anonymous = await rejectionOf(adapter.send(config(), outboundMessage(), services));
    expect(anonymous.retryable).toBe(false);
    expect(anonymous.message).toContain('HTTP 403: forbidden');
    const wrong = await rejectionOf(
      adapter.send(config({ token: 'tk_bad' }), outboundMessage(), services),
    );
    expect(wrong.message).toContain('HTTP 401: unauthorized');
  });

  it('send() refuses a message of 4096 bytes or more (it would become an attachment) without publishing', async () => {
    peer = await startNtfyPeer({ now: clock.now });
    const err = await rejectionOf(
      adapter.send(config(), outboundMessage({ content: 'é'.repeat(2048) }), services),
    );
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('4096 bytes');
    expect(peer.requests).toBe(0);
    await adapter.send(config(), outboundMessage({ content: 'x'.repeat(4095) }), services);
    expect(peer.received).toHaveLength(1);
  });

  it('send() is transient when the visitor bucket is empty (429), and works again after refill', async () => {
    peer = await startNtfyPeer({ now: clock.now, burst: 2 });
    await adapter.send(config(), outboundMessage(), services);
    await adapter.send(config(), outboundMessage(), services);
    const err = await rejectionOf(adapter.send(config(), outboundMessage(), services));
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('too many requests');
    clock.advance(5_000);
    await adapter.send(config(), outboundMessage(), services);
    expect(peer.received).toHaveLength(3);
  });

  it('send() honours a Retry-After header on a scripted 429', async () => {
    peer = await startNtfyPeer({ now: clock.now });
    peer.failNext({ ...NTFY_ERRORS.tooManyRequests, headers: { 'Retry-After': '12' } });
    const err = await rejectionOf(adapter.send(config(), outboundMessage(), services));
    expect(err.retryAfterMs).toBe(12_000);
  });
});
