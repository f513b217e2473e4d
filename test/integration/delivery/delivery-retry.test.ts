import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Channel, Delivery, DeliveryAttempt } from '../../../server/db/models';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

describe('delivery retries', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let webhookId: number;

  beforeAll(async () => {
    herald = await startTestHerald({
      settings: { retry: { maxAttempts: 4, baseDelayMs: 20, maxDelayMs: 200 } },
    });
    peer = await startHttpPeer();
    webhookId = (await herald.createChannel('webhook', { url: `${peer.url}/retry` })).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const deliveryOf = async (title: string) =>
    herald.waitFor(() => Delivery.findOne({ where: { title } }));
  const finished = (title: string) =>
    herald.waitFor(async () => {
      const d = await Delivery.findOne({ where: { title } });
      return d && (d.status === 'sent' || d.status === 'failed') ? d : null;
    });

  it('dispatcher retries transient failures (5xx, 429) and records every attempt', async () => {
    const { token } = await herald.createTemplate({ text: 'retry me' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    peer.script.push(
      { status: 503, body: 'busy' },
      { status: 429, body: 'slow down', headers: { 'Retry-After': '0' } },
    );
    await herald.sendV2({ token, title: 'transient then ok' });
    const d = await finished('transient then ok');
    expect(d.status).toBe('sent');
    expect(d.attempts).toBe(3);
    const attempts = await DeliveryAttempt.findAll({
      where: { deliveryId: d.id },
      order: [['id', 'ASC']],
    });
    expect(attempts.map((a) => a.outcome)).toEqual(['transient', 'transient', 'sent']);
    expect(attempts[0].reply).toContain('HTTP 503 busy');
    expect(attempts[1].reply).toContain('HTTP 429');
    const log = await herald.console.ok('GET', `/logs/${d.sendId}`);
    expect(log.status).toBe('sent');
    expect(log.deliveries[0].attemptLog).toHaveLength(3);
  });

  it('dispatcher fails a permanent error (4xx) at once with the platform reply', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    peer.script.push({ status: 400, body: '{"error":"bad field"}' });
    await herald.sendV2({ token, title: 'permanent' });
    const d = await finished('permanent');
    expect(d.status).toBe('failed');
    expect(d.attempts).toBe(1);
    expect(d.lastError).toMatch(/HTTP 400/);
    expect(d.reply).toContain('bad field');
  });

  it('dispatcher gives up after maxAttempts transient failures and says so', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    peer.script.push(...Array.from({ length: 4 }, () => ({ status: 502, body: 'bad gateway' })));
    await herald.sendV2({ token, title: 'gives up' });
    const d = await finished('gives up');
    expect(d.status).toBe('failed');
    expect(d.attempts).toBe(4);
    expect(d.lastError).toMatch(/gave up after 4 attempts/);
    const send = await herald.console.ok('GET', `/logs/${d.sendId}`);
    expect(send.status).toBe('failed');
  });

  it('POST /deliveries/:id/retry queues a failed delivery again', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    peer.script.push({ status: 401, body: 'nope' });
    await herald.sendV2({ token, title: 'manual retry' });
    const failed = await finished('manual retry');
    expect(failed.status).toBe('failed');
    const before = peer.received.length;
    await herald.console.ok('POST', `/deliveries/${failed.id}/retry`);
    await peer.waitForRequests(before + 1);
    const d = await herald.waitFor(async () => {
      const row = await Delivery.findByPk(failed.id);
      return row?.status === 'sent' ? row : null;
    });
    expect(d.status).toBe('sent');
    expect((await herald.console.ok('GET', `/logs/${d.sendId}`)).status).toBe('sent');
    const again = await herald.console.post(`/deliveries/${failed.id}/retry`);
    expect(again.status).toBe(409);
  });

  it('webhook body escapes quotes and newlines so JSON stays valid', async () => {
    const hook = await herald.createChannel('webhook', {
      url: `${peer.url}/custom?t={{title}}`,
      headers: { 'Content-Type': 'application/json', 'X-Herald': 'yes' },
      body: '{"msg": "{{title}}: {{content}}", "raw": {{content}}, "fmt": "{{format}}"}',
    });
    const { token } = await herald.createTemplate({ markdown: 'line "one"\nline \\two' }, [
      { channelId: hook.id, contentType: 'markdown' },
    ]);
    const before = peer.received.length;
    await herald.sendV2({ token, title: 'quote "q" & more' });
    const [req] = (await peer.waitForRequests(before + 1)).slice(-1);
    expect(req.headers['x-herald']).toBe('yes');
    expect(req.url).toBe(`/custom?t=${encodeURIComponent('quote "q" & more')}`);
    expect(req.json).toEqual({
      msg: 'quote "q" & more: line "one"\nline \\two',
      raw: 'line "one"\nline \\two',
      fmt: 'markdown',
    });
    await deliveryOf('quote "q" & more');
  });

  it('console refuses a webhook body template that is not JSON once filled', async () => {
    const res = await herald.console.post('/channels', {
      name: 'bad-body',
      type: 'webhook',
      config: { url: 'http://127.0.0.1:1/x', body: '{"a": {{content}' },
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/^config: body: body is not valid JSON/);
  });

  it('a throwing listener of new hosted messages does not fail the delivery', async () => {
    const inbox = await herald.createChannel('hosted');
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: inbox.id, contentType: 'text' },
    ]);
    const boom = () => {
      throw new Error('listener broke');
    };
    herald.server.events.on('message', boom);
    try {
      await herald.sendV2({ token, title: 'listener throws' });
      const d = await finished('listener throws');
      expect(d.status).toBe('sent');
      expect(d.attempts).toBe(1);
    } finally {
      herald.server.events.off('message', boom);
    }
  });

  it('webhook secret headers are sealed, masked in the console, kept on "******" and sent', async () => {
    const hook = await herald.createChannel('webhook', {
      url: `${peer.url}/secret`,
      headers: { 'X-Plain': 'visible' },
      secretHeaders: { Authorization: 'Bearer s3cr3t-value' },
    });
    expect(hook.config.headers).toEqual({ 'X-Plain': 'visible' });
    expect(hook.config.secretHeaders).toEqual({ Authorization: '******' });
    const row = await Channel.findByPk(hook.id);
    expect(JSON.stringify(row!.config)).not.toContain('s3cr3t-value');
    // The console sends the masked value back unchanged, plus a new secret header.
    const edited = await herald.console.ok('PUT', `/channels/${hook.id}`, {
      config: {
        url: `${peer.url}/secret`,
        headers: { 'X-Plain': 'visible' },
        secretHeaders: { Authorization: '******', 'X-Api-Key': 'k-123' },
      },
    });
    expect(edited.config.secretHeaders).toEqual({ Authorization: '******', 'X-Api-Key': '******' });
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: hook.id, contentType: 'text' },
    ]);
    const before = peer.received.length;
    await herald.sendV2({ token, title: 'secret headers' });
    const [req] = (await peer.waitForRequests(before + 1)).slice(-1);
    expect(req.headers.authorization).toBe('Bearer s3cr3t-value');
    expect(req.headers['x-api-key']).toBe('k-123');
    expect(req.headers['x-plain']).toBe('visible');
  });
});
