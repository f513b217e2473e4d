import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { createPushMeAdapter, pushMeConfigSchema } from '../../../server/channels/pushme';
import { Channel, Delivery } from '../../../server/db/models';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import { adapterRuntime, outboundMessage } from '../../fixtures/peers/outbound-message';
import { startPushMePeer, type PushMePeer } from '../../fixtures/peers/pushme-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

describe('PushMe adapter against a local server', () => {
  const adapter = createPushMeAdapter();
  const services = adapterRuntime();
  let peer: PushMePeer;

  afterEach(async () => {
    await peer?.close();
  });

  async function setUp() {
    peer = await startPushMePeer();
    const config = pushMeConfigSchema.parse({ pushKey: peer.pushKey, serverUrl: peer.serverUrl });
    const send = (overrides: Parameters<typeof outboundMessage>[0] = {}, cfg = config) =>
      adapter.send(cfg, outboundMessage(overrides), services);
    return { config, send };
  }

  it('send() posts the form fields and takes "success" as delivered', async () => {
    const { send } = await setUp();
    const receipt = await send({
      contentType: 'markdown',
      content: '**web-3** 98% & up',
      url: 'https://x.example/1',
    });
    expect(receipt.reply).toBe('HTTP 200 success');
    expect(peer.received).toEqual([
      {
        push_key: peer.pushKey,
        title: 'Disk alert',
        content: '**web-3** 98% & up\n\n[https://x.example/1](https://x.example/1)',
        type: 'markdown',
        contentType: 'application/x-www-form-urlencoded; charset=utf-8',
      },
    ]);
  });

  it('send() fails permanently on a wrong push key, naming pushKey', async () => {
    const { send, config } = await setUp();
    const err = await rejectionOf(send({}, { ...config, pushKey: 'not-a-key' }));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('Push failed, invalid push_key!');
    expect(err.message).toContain('check pushKey');
  });

  it('send() fails transiently on HTTP 500, 429 and a timeout, permanently on 404', async () => {
    const { send, config } = await setUp();
    peer.script({ status: 502, body: 'Bad Gateway' });
    peer.script({ status: 429, body: 'Too Many Requests', headers: { 'Retry-After': '7' } });
    peer.script('hang');
    peer.script({ status: 404, body: 'Not Found' });
    expect((await rejectionOf(send())).retryable).toBe(true);
    expect(await rejectionOf(send())).toMatchObject({ retryable: true, retryAfterMs: 7000 });
    expect((await rejectionOf(send({}, { ...config, timeoutMs: 300 }))).message).toContain(
      'timed out',
    );
    const missing = await rejectionOf(send());
    expect(missing.retryable).toBe(false);
    expect(missing.message).toContain('HTTP 404');
    await send();
    expect(peer.received).toHaveLength(1);
  });

  it('send() treats any other 200 answer as a failure, not a delivery', async () => {
    const { send } = await setUp();
    peer.script({ status: 200, body: '<html>captive portal</html>' });
    const err = await rejectionOf(send());
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('captive portal');
  });
});

describe('PushMe through Herald', () => {
  let herald: TestHerald;
  let peer: PushMePeer;
  let channelId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    peer = await startPushMePeer();
    channelId = (
      await herald.createChannel('pushme', { pushKey: peer.pushKey, serverUrl: peer.serverUrl })
    ).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const finished = (title: string) =>
    herald.waitFor(async () => {
      const d = await Delivery.findOne({ where: { title } });
      return d && (d.status === 'sent' || d.status === 'failed') ? d : null;
    });

  it('keeps the push key sealed and masked', async () => {
    const dto = await herald.console.ok('GET', `/channels/${channelId}`);
    expect(dto.config).toMatchObject({ pushKey: '******', serverUrl: peer.serverUrl });
    const row = await Channel.findByPk(channelId);
    expect(JSON.stringify(row?.config)).not.toContain(peer.pushKey);
  });

  it('V1 sends title and html content with type html', async () => {
    const { token } = await herald.createTask('pushme-v1', [{ channelId, contentType: 'html' }]);
    const res = await herald.sendV1({ token, title: 'Disk alert', html: '<b>web-3</b> 98%' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(peer.received[peer.received.length - 1]).toMatchObject({
      title: 'Disk alert',
      content: '<b>web-3</b> 98%',
      type: 'html',
    });
  });

  it('HTTP 500 once is retried and delivered', async () => {
    const { token } = await herald.createTemplate({ text: 'retry me' }, [
      { channelId, contentType: 'text' },
    ]);
    peer.script({ status: 500, body: 'Internal Server Error' });
    await herald.sendV2({ token, title: 'pushme 500 once' });
    expect(await finished('pushme 500 once')).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('a wrong push key fails at once, without retries', async () => {
    const wrong = await herald.createChannel('pushme', {
      pushKey: 'wrong-key',
      serverUrl: peer.serverUrl,
    });
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: wrong.id, contentType: 'text' },
    ]);
    await herald.sendV2({ token, title: 'pushme wrong key' });
    const d = await finished('pushme wrong key');
    expect(d).toMatchObject({ status: 'failed', attempts: 1 });
    expect(d.lastError).toContain('invalid push_key');
  });
});
