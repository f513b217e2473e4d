import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { createWeComAppAdapter, type WeComAppConfig } from '../../../server/channels/wecom-app';
import { Channel, Delivery } from '../../../server/db/models';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import {
  startWeComAppPeer,
  type WeComAppPeer,
  type WeComAppPeerOptions,
} from '../../fixtures/peers/wecom-app-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

describe('WeCom app adapter against a local API', () => {
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: WeComAppPeer;

  afterEach(async () => {
    await peer?.close();
  });

  async function setUp(options: WeComAppPeerOptions = {}) {
    peer = await startWeComAppPeer({ now: clock.now, ...options });
    const config: WeComAppConfig = {
      corpId: peer.corpId,
      agentId: peer.agentId,
      secret: peer.secret,
      apiBaseUrl: peer.apiBaseUrl,
    };
    // A fresh adapter per test: its token cache is per server, like Herald's registry.
    const adapter = createWeComAppAdapter();
    const send = (overrides: Parameters<typeof outboundMessage>[0] = {}, cfg = config) =>
      adapter.send(cfg, outboundMessage({ recipient: 'zhangsan', ...overrides }), services);
    return { adapter, config, send };
  }

  it('send() posts the app message with agentid and touser/toparty/totag', async () => {
    const { send } = await setUp();
    const receipt = await send({
      recipient: 'zhangsan|lisi;party:2;tag:5',
      url: 'https://x.example/1',
    });
    expect(receipt.reply).toContain('"errcode":0');
    expect(peer.received).toEqual([
      {
        touser: 'zhangsan|lisi',
        toparty: '2',
        totag: '5',
        msgtype: 'text',
        agentid: peer.agentId,
        text: { content: 'Disk alert\nweb-3 at 98%\nhttps://x.example/1' },
      },
    ]);
  });

  it('send() fetches one token for many deliveries and refreshes it 5 minutes before expiry', async () => {
    const { send } = await setUp();
    await Promise.all(Array.from({ length: 4 }, () => send()));
    expect(peer.tokenCalls).toBe(1);
    clock.advance((7200 - 301) * 1000);
    await send();
    expect(peer.tokenCalls).toBe(1);
    clock.advance(2000);
    await send();
    expect(peer.tokenCalls).toBe(2);
    expect(peer.received).toHaveLength(6);
  });

  it('send() refetches once when WeCom says the token expired (42001) and still delivers', async () => {
    const { send } = await setUp();
    await send();
    peer.expireTokens();
    await send({ content: 'after expiry' });
    expect(peer.tokenCalls).toBe(2);
    expect(peer.received).toHaveLength(2);
  });

  it('send() shares the token between channels of the same app', async () => {
    const { send } = await setUp();
    await send({ channelId: 1 });
    await send({ channelId: 2, recipient: 'party:2' });
    expect(peer.tokenCalls).toBe(1);
  });

  it('send() fails permanently on a wrong secret (40001 is the secret here) and a wrong corpId', async () => {
    const { send, config } = await setUp();
    const secret = await rejectionOf(send({}, { ...config, secret: 'wrong' }));
    expect(secret.retryable).toBe(false);
    expect(secret.message).toContain('errcode 40001');
    expect(secret.message).toContain('secret is wrong');
    // Remembered for a minute: a burst does not hammer gettoken.
    await rejectionOf(send({}, { ...config, secret: 'wrong' }));
    expect(peer.tokenCalls).toBe(1);
    const corp = await rejectionOf(send({}, { ...config, corpId: 'wwnope' }));
    expect(corp.retryable).toBe(false);
    expect(corp.message).toContain('errcode 40013');
  });

  it('send() fails permanently for another app’s agentId and when no recipient is valid', async () => {
    const { send, config } = await setUp();
    const agent = await rejectionOf(send({}, { ...config, agentId: 1000099 }));
    expect(agent.retryable).toBe(false);
    expect(agent.message).toContain('errcode 301002');
    const nobody = await rejectionOf(send({ recipient: 'ghost;party:99' }));
    expect(nobody.retryable).toBe(false);
    expect(nobody.message).toContain('errcode 81013');
  });

  it('send() succeeds when some recipients are unknown and names them in the receipt', async () => {
    const { send } = await setUp();
    const receipt = await send({ recipient: 'zhangsan|Ghost' });
    expect(receipt.reply).toContain('not delivered to invaliduser: ghost');
  });

  it('send() fails transiently on the frequency limit (45009), errcode -1 and HTTP 500', async () => {
    const { send } = await setUp();
    peer.failNext(1, 'busy');
    peer.failNext(1, 'http500');
    peer.throttleNext(1);
    const busy = await rejectionOf(send());
    expect(busy.retryable).toBe(true);
    expect(busy.message).toContain('errcode -1');
    expect((await rejectionOf(send())).retryable).toBe(true);
    const throttled = await rejectionOf(send());
    expect(throttled.retryable).toBe(true);
    expect(throttled.message).toContain('errcode 45009');
    await send();
    expect(peer.received).toHaveLength(1);
  });

  it('send() refuses markdown over 2,048 bytes before calling WeCom', async () => {
    const { send } = await setUp();
    const err = await rejectionOf(send({ contentType: 'markdown', content: '长'.repeat(700) }));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('2048');
    expect(peer.tokenCalls).toBe(0);
  });
});

describe('WeCom app through Herald', () => {
  let herald: TestHerald;
  let peer: WeComAppPeer;
  let channelId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    peer = await startWeComAppPeer();
    channelId = (
      await herald.createChannel('wecom_app', {
        corpId: peer.corpId,
        // As Message Nest stored it: a string.
        agentId: String(peer.agentId),
        secret: peer.secret,
        apiBaseUrl: peer.apiBaseUrl,
      })
    ).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const finished = (title: string) =>
    herald.waitFor(async () => {
      const rows = await Delivery.findAll({ where: { title } });
      return rows.length > 0 && rows.every((d) => d.status === 'sent' || d.status === 'failed')
        ? rows
        : null;
    });

  it('keeps the secret sealed and masked, and agentId as a number', async () => {
    const dto = await herald.console.ok('GET', `/channels/${channelId}`);
    expect(dto.config).toMatchObject({
      corpId: peer.corpId,
      agentId: peer.agentId,
      secret: '******',
    });
    const row = await Channel.findByPk(channelId);
    expect(JSON.stringify(row?.config)).not.toContain(peer.secret);
  });

  it('refuses an instance whose recipient is not WeCom ids, with a msg that says why', async () => {
    const task = await herald.console.ok('POST', '/tasks', { name: 'wecom-app-bad' });
    const res = await herald.console.post(`/tasks/${task.id}/instances`, {
      channelId,
      contentType: 'text',
      recipient: 'party:sales',
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('recipient: "sales" is not a WeCom party id: party ids are numbers');
  });

  it('V1 sends markdown to the instance’s members and department', async () => {
    const { token } = await herald.createTask('wecom-app-v1', [
      { channelId, contentType: 'markdown', recipient: 'zhangsan|lisi;party:2' },
    ]);
    const res = await herald.sendV1({ token, title: 'Disk alert', markdown: '**web-3** 98%' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(peer.received[peer.received.length - 1]).toEqual({
      touser: 'zhangsan|lisi',
      toparty: '2',
      msgtype: 'markdown',
      agentid: peer.agentId,
      markdown: { content: '### Disk alert\n\n**web-3** 98%' },
    });
  });

  it('V2 sends one message per dynamic recipient on a single token', async () => {
    const { token } = await herald.createTemplate(
      { text: '{{host}} is down', placeholders: [{ key: 'host', label: 'Host' }] },
      [{ channelId, contentType: 'text', dynamicRecipients: true }],
    );
    const calls = peer.tokenCalls;
    const res = await herald.sendV2({
      token,
      title: 'V2 down',
      placeholders: { host: 'db-1' },
      recipients: ['zhangsan', 'tag:5'],
    });
    expect(res.body.code).toBe(200);
    expect((await finished('V2 down')).map((d) => d.status)).toEqual(['sent', 'sent']);
    const mine = peer.received.filter(
      (b) => (b.text as { content?: string })?.content === 'V2 down\ndb-1 is down',
    );
    expect(mine.map((b) => b.touser ?? `tag:${String(b.totag)}`).sort()).toEqual([
      'tag:5',
      'zhangsan',
    ]);
    // Both deliveries share one token: at most one fetch (none when an earlier send cached it).
    expect(peer.tokenCalls - calls).toBeLessThanOrEqual(1);
  });

  it('an expired token is refreshed once and the message still goes out', async () => {
    const { token } = await herald.createTask('wecom-app-expired', [
      { channelId, contentType: 'text', recipient: 'lisi' },
    ]);
    const calls = peer.tokenCalls;
    peer.expireTokens();
    const res = await herald.sendV1({ token, title: 'after expiry', text: 'x' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(peer.tokenCalls).toBe(calls + 1);
  });

  it('the frequency limit (45009) is retried and the message delivered on the next attempt', async () => {
    const { token } = await herald.createTemplate({ text: 'retry me' }, [
      { channelId, contentType: 'text', recipient: 'zhangsan' },
    ]);
    peer.throttleNext(1);
    await herald.sendV2({ token, title: 'throttled once' });
    const [d] = await finished('throttled once');
    expect(d).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('a wrong secret fails at once, without retries', async () => {
    const wrong = await herald.createChannel('wecom_app', {
      corpId: peer.corpId,
      agentId: peer.agentId,
      secret: 'not-the-secret',
      apiBaseUrl: peer.apiBaseUrl,
    });
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: wrong.id, contentType: 'text', recipient: 'zhangsan' },
    ]);
    await herald.sendV2({ token, title: 'wrong secret' });
    const [d] = await finished('wrong secret');
    expect(d).toMatchObject({ status: 'failed', attempts: 1 });
    expect(d.lastError).toContain('errcode 40001');
  });
});
