import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { createWxPusherAdapter, type WxPusherConfig } from '../../../server/channels/wxpusher';
import { Channel, Delivery } from '../../../server/db/models';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import { adapterRuntime, outboundMessage } from '../../fixtures/peers/outbound-message';
import { busiestWindow } from '../../fixtures/peers/platform-peer';
import {
  startWxPusherPeer,
  type WxPusherPeer,
  type WxPusherPeerOptions,
} from '../../fixtures/peers/wxpusher-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

describe('WxPusher adapter against a local API', () => {
  const services = adapterRuntime();
  let peer: WxPusherPeer;

  afterEach(async () => {
    await peer?.close();
  });

  async function setUp(options: WxPusherPeerOptions = {}, extra: Partial<WxPusherConfig> = {}) {
    peer = await startWxPusherPeer(options);
    const adapter = createWxPusherAdapter();
    const config = adapter.configSchema.parse({
      appToken: peer.appToken,
      uids: ['UID_alice'],
      baseUrl: peer.baseUrl,
      ...extra,
    });
    const send = (overrides: Parameters<typeof outboundMessage>[0] = {}, cfg = config) =>
      adapter.send(cfg, outboundMessage(overrides), services);
    return { adapter, config, send };
  }

  it('send() posts content, the title as summary, the instance’s format and the targets', async () => {
    const { send } = await setUp({}, { topicIds: ['12345'] });
    const receipt = await send({ url: 'https://x.example/1' });
    expect(peer.paths).toEqual(['/api/send/message']);
    expect(peer.received).toEqual([
      {
        appToken: peer.appToken,
        content: 'web-3 at 98%',
        summary: 'Disk alert',
        contentType: 1,
        url: 'https://x.example/1',
        uids: ['UID_alice'],
        topicIds: [12345],
      },
    ]);
    expect(receipt.reply).toMatch(/^reached 2 of 2; HTTP 200 \{"code":1000/);
  });

  it('send() cuts the summary to 100 characters and sends Markdown as 3 and HTML as 2', async () => {
    const { send } = await setUp();
    await send({ title: '长'.repeat(150), contentType: 'markdown', content: '**web-3**' });
    await send({ contentType: 'html', content: '<b>web-3</b>' });
    expect(peer.received[0]).toMatchObject({ summary: '长'.repeat(100), contentType: 3 });
    expect(peer.received[0].content).toBe('**web-3**');
    expect(peer.received[1]).toMatchObject({ contentType: 2, content: '<b>web-3</b>' });
  });

  it('a channel contentType converts every message to its format (Markdown to HTML here)', async () => {
    const { send } = await setUp({}, { contentType: 2 });
    await send({ contentType: 'markdown', content: '**web-3** down' });
    expect(peer.received[0]).toMatchObject({ contentType: 2 });
    expect(peer.received[0].content).toContain('<strong>web-3</strong> down');
  });

  it('the channel’s url is used when the send has none', async () => {
    const { send } = await setUp({}, { url: 'https://status.example.com' });
    await send();
    expect(peer.received[0].url).toBe('https://status.example.com');
  });

  it('a dynamic recipient is the one UID the message goes to, in place of the channel’s', async () => {
    const { send } = await setUp({}, { uids: ['UID_alice'], topicIds: ['12345'] });
    await send({ recipient: 'UID_bob' });
    expect(peer.received[0]).toMatchObject({ uids: ['UID_bob'] });
    expect(peer.received[0].topicIds).toBeUndefined();
  });

  it('a partial failure is sent, naming each UID not reached; none reached fails permanently', async () => {
    const { send, config } = await setUp();
    const receipt = await send({}, { ...config, uids: ['UID_alice', 'UID_ghost'] });
    expect(receipt.reply).toMatch(/^reached 1 of 2; not reached: UID_ghost: 用户未关注应用; /);
    const none = await rejectionOf(send({}, { ...config, uids: ['UID_ghost'] }));
    expect(none.retryable).toBe(false);
    expect(none.message).toBe(
      'WxPusher reached none of the 1 recipients (UID_ghost: 用户未关注应用)',
    );
  });

  it('simple push posts spt (one) or sptList (several) to the simple-push endpoint, no appToken', async () => {
    const { send } = await setUp();
    const one = createWxPusherAdapter().configSchema.parse({
      mode: 'spt',
      spt: 'SPT_alice0123',
      baseUrl: peer.baseUrl,
    });
    await send({}, one);
    const two = { ...one, spt: 'SPT_alice0123, SPT_bob0123' };
    await send({ contentType: 'markdown', content: '# up' }, two);
    expect(peer.paths).toEqual(['/api/send/message/simple-push', '/api/send/message/simple-push']);
    expect(peer.received[0]).toEqual({
      content: 'web-3 at 98%',
      summary: 'Disk alert',
      contentType: 1,
      spt: 'SPT_alice0123',
    });
    expect(peer.received[1]).toMatchObject({
      contentType: 3,
      sptList: ['SPT_alice0123', 'SPT_bob0123'],
    });
    expect(peer.received.every((b) => !('appToken' in b))).toBe(true);
  });

  it('refuses a config that mixes the modes or lacks its credential', () => {
    const schema = createWxPusherAdapter().configSchema;
    const issues = (cfg: unknown) =>
      schema.safeParse(cfg).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ uids: ['UID_a'] })).toEqual([
      'appToken: appToken is required (WxPusher admin → the app → appToken)',
    ]);
    expect(issues({ mode: 'spt' })).toEqual(['spt: spt is required in simple-push mode (SPT_…)']);
    expect(issues({ mode: 'spt', spt: 'SPT_a', appToken: 'AT_x' })).toEqual([
      'mode: simple push takes no appToken, uids or topicIds',
    ]);
    expect(issues({ appToken: 'AT_x', topicIds: ['1', '2', '3', '4', '5', '6'] })).toEqual([
      'topicIds: topicIds holds at most 5 topics',
    ]);
  });

  it('a wrong appToken (1001) and a missing target fail permanently; nothing to send is refused before any request', async () => {
    const { send, config } = await setUp();
    const token = await rejectionOf(send({}, { ...config, appToken: 'AT_wrong' }));
    expect(token.retryable).toBe(false);
    expect(token.message).toBe(
      'WxPusher refused the message: code 1001 appToken不正确 (check appToken (WxPusher admin → the app → appToken) and the UIDs or topics)',
    );
    const nobody = await rejectionOf(send({}, { ...config, uids: undefined }));
    expect(nobody.retryable).toBe(false);
    expect(nobody.message).toContain('no WxPusher recipient');
    expect(peer.received).toHaveLength(0);
  });

  it('server errors (1005), HTTP 500 and the rate limit (HTTP 429) are retried; 1002 and 1008 are not', async () => {
    // The peer's clock stands still, so a third request in its second is over the limit.
    const { send } = await setUp({ now: () => 0 });
    await send();
    await send();
    const limited = await rejectionOf(send());
    expect(limited.retryable).toBe(true);
    expect(limited.message).toContain('429');
    expect(peer.rateLimited).toBe(1);
    peer.failNext(1, 'busy');
    peer.failNext(1, 'http500');
    expect((await rejectionOf(send())).retryable).toBe(true);
    expect((await rejectionOf(send())).retryable).toBe(true);
    for (const code of [1006, 1007, 1009]) {
      peer.answerNext(1, code, 'trouble');
      expect((await rejectionOf(send())).retryable).toBe(true);
    }
    for (const code of [1002, 1003, 1004, 1008]) {
      peer.answerNext(1, code, 'refused');
      const err = await rejectionOf(send());
      expect(err.retryable).toBe(false);
      expect(err.message).toContain(`code ${code}`);
    }
  });

  it('content of 40,000 characters is refused before any request', async () => {
    const { send } = await setUp();
    const err = await rejectionOf(send({ content: 'x'.repeat(40_000) }));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('40000');
    expect(peer.received).toHaveLength(0);
  });

  it('paces to 2 requests a second per appToken', () => {
    const adapter = createWxPusherAdapter();
    const base = { appToken: 'AT_a', uids: ['UID_a'] };
    const a = adapter.rateLimit!(adapter.configSchema.parse(base));
    const b = adapter.rateLimit!(adapter.configSchema.parse({ ...base, appToken: 'AT_b' }));
    expect(a).toMatchObject({ max: 2, perMs: 1000 });
    expect(a!.key).not.toBe(b!.key);
    expect(a!.key).not.toContain('AT_a');
  });

  it('priority changes nothing WxPusher is sent (it has none)', async () => {
    const { send } = await setUp();
    await send({ priority: 5 });
    await send({ priority: 1 });
    expect(peer.received[0]).toEqual(peer.received[1]);
  });
});

describe('WxPusher through Herald', () => {
  let herald: TestHerald;
  let peer: WxPusherPeer;
  let channelId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    peer = await startWxPusherPeer();
    channelId = (
      await herald.createChannel('wxpusher', {
        appToken: peer.appToken,
        uids: 'UID_alice,UID_bob',
        baseUrl: peer.baseUrl,
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

  it('keeps the appToken sealed and masked', async () => {
    const dto = await herald.console.ok('GET', `/channels/${channelId}`);
    expect(dto.config).toMatchObject({
      mode: 'app',
      appToken: '******',
      uids: ['UID_alice', 'UID_bob'],
    });
    const row = await Channel.findByPk(channelId);
    expect(JSON.stringify(row?.config)).not.toContain(peer.appToken);
  });

  it('V1 sends HTML to the channel’s UIDs and keeps the per-UID results in the send log', async () => {
    const { token } = await herald.createTask('wxpusher-v1', [{ channelId, contentType: 'html' }]);
    const res = await herald.sendV1({ token, title: 'Disk alert', html: '<b>web-3</b> 98%' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(peer.received[peer.received.length - 1]).toMatchObject({
      contentType: 2,
      content: '<b>web-3</b> 98%',
      uids: ['UID_alice', 'UID_bob'],
    });
    const [d] = await finished('Disk alert');
    expect(d.reply).toMatch(/^reached 2 of 2; /);
    expect(d.reply).toContain('"uid":"UID_bob"');
  });

  it('V2 sends one message per dynamic recipient UID, and refuses a recipient that is not a UID', async () => {
    const { token } = await herald.createTemplate(
      { text: '{{host}} is down', placeholders: [{ key: 'host', label: 'Host' }] },
      [{ channelId, contentType: 'text', dynamicRecipients: true }],
    );
    const bad = await herald.sendV2({ token, title: 'V2 bad', recipients: ['not a uid'] });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe(
      'recipients: "not a uid" is not a WxPusher UID (UID_…: letters, digits, _ and -)',
    );
    const res = await herald.sendV2({
      token,
      title: 'V2 down',
      placeholders: { host: 'db-1' },
      recipients: ['UID_alice', 'UID_bob'],
    });
    expect(res.body.code).toBe(200);
    expect((await finished('V2 down')).map((d) => d.status)).toEqual(['sent', 'sent']);
    const mine = peer.received.filter((b) => b.summary === 'V2 down');
    expect(mine.map((b) => b.uids).sort()).toEqual([['UID_alice'], ['UID_bob']]);
  });

  it('a server error is retried and the message delivered on the next attempt', async () => {
    const { token } = await herald.createTemplate({ text: 'retry me' }, [
      { channelId, contentType: 'text' },
    ]);
    peer.failNext(1, 'busy');
    await herald.sendV2({ token, title: 'wx once busy' });
    const [d] = await finished('wx once busy');
    expect(d).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('a wrong appToken fails at once, without retries', async () => {
    const wrong = await herald.createChannel('wxpusher', {
      appToken: 'AT_not_the_token',
      uids: ['UID_alice'],
      baseUrl: peer.baseUrl,
    });
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: wrong.id, contentType: 'text' },
    ]);
    await herald.sendV2({ token, title: 'wx wrong token' });
    const [d] = await finished('wx wrong token');
    expect(d).toMatchObject({ status: 'failed', attempts: 1 });
    expect(d.lastError).toContain('code 1001');
  });

  it('"send test" reaches the channel’s UIDs', async () => {
    // A peer of its own: a test send is not paced, and on the shared peer it could take one of
    // the 2 a second the other tests' paced sends count on (the peer answers 429 past them).
    const own = await startWxPusherPeer();
    try {
      const tested = await herald.createChannel('wxpusher', {
        appToken: own.appToken,
        uids: 'UID_alice,UID_bob',
        baseUrl: own.baseUrl,
      });
      const res = await herald.console.post(`/channels/${tested.id}/test`, {});
      expect(res.status).toBe(200);
      expect(own.received).toHaveLength(1);
      expect(own.received[0]).toMatchObject({
        contentType: 3,
        summary: 'Herald test message',
        uids: ['UID_alice', 'UID_bob'],
      });
    } finally {
      await own.close();
    }
  });
});

describe('WxPusher pacing through Herald', () => {
  const clock = new ManualClock();
  let herald: TestHerald;
  let peer: WxPusherPeer;

  beforeAll(async () => {
    herald = await startTestHerald({ clock, startDispatcher: false });
    peer = await startWxPusherPeer({ now: () => clock.now() });
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('a burst of 6 to one account arrives complete and never faster than 2 a second', async () => {
    const channel = await herald.createChannel('wxpusher', {
      appToken: peer.appToken,
      uids: ['UID_alice'],
      baseUrl: peer.baseUrl,
    });
    const { token } = await herald.createTemplate({ text: 'burst' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    for (let i = 0; i < 6; i++) await herald.sendV2({ token, title: `burst ${i}` });

    for (let round = 0; round < 20 && peer.received.length < 6; round++) {
      await herald.server.ctx.dispatcher.runDue();
      clock.advance(250);
    }

    expect(peer.received).toHaveLength(6);
    expect(peer.rateLimited).toBe(0);
    expect(new Set(peer.received.map((b) => b.summary)).size).toBe(6);
    expect(busiestWindow(peer.receivedAt, 1000)).toBe(2);
  });
});
