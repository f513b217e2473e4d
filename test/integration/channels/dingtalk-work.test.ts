import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  createDingTalkWorkAdapter,
  type DingTalkWorkConfig,
} from '../../../server/channels/dingtalk-work';
import { Channel, Delivery } from '../../../server/db/models';
import {
  startDingTalkWorkPeer,
  type DingTalkWorkPeer,
  type DingTalkWorkPeerOptions,
} from '../../fixtures/peers/dingtalk-work-peer';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

describe('DingTalk work notice adapter against a local API', () => {
  const clock = manualClock();
  const services = adapterRuntime(clock);
  let peer: DingTalkWorkPeer;

  afterEach(async () => {
    await peer?.close();
  });

  async function setUp(options: DingTalkWorkPeerOptions = {}) {
    peer = await startDingTalkWorkPeer({ now: clock.now, ...options });
    const adapter = createDingTalkWorkAdapter();
    const config: DingTalkWorkConfig = adapter.configSchema.parse({
      appKey: peer.appKey,
      appSecret: peer.appSecret,
      agentId: peer.agentId,
      userIds: ['manager1', 'manager2'],
      baseUrl: peer.baseUrl,
    });
    const send = (overrides: Parameters<typeof outboundMessage>[0] = {}, cfg = config) =>
      adapter.send(cfg, outboundMessage(overrides), services);
    return { adapter, config, send };
  }

  it('send() posts the notice with agent_id and userid_list, and keeps the task_id', async () => {
    const { send } = await setUp();
    const receipt = await send({ url: 'https://x.example/1' });
    expect(peer.received).toEqual([
      {
        agent_id: peer.agentId,
        userid_list: 'manager1,manager2',
        msg: {
          msgtype: 'text',
          text: { content: 'Disk alert\nweb-3 at 98%\nhttps://x.example/1' },
        },
      },
    ]);
    expect(receipt.reply).toMatch(/^task_id 256000000001; HTTP 200 \{"errcode":0/);
    expect(peer.resultCalls).toBe(1);
  });

  it('Markdown goes as a markdown notice whose title is the send’s title', async () => {
    const { send } = await setUp();
    await send({ contentType: 'markdown', content: '**web-3** 98%' });
    await send({ contentType: 'markdown', title: '', content: '**db-2** down' });
    expect(peer.received[0].msg).toEqual({
      msgtype: 'markdown',
      markdown: { title: 'Disk alert', text: '### Disk alert\n\n**web-3** 98%' },
    });
    expect(peer.received[1].msg).toEqual({
      msgtype: 'markdown',
      markdown: { title: 'db-2 down', text: '**db-2** down' },
    });
  });

  it('departments and everyone go as dept_id_list and to_all_user', async () => {
    const { send, config } = await setUp();
    await send({}, { ...config, userIds: undefined, deptIds: ['1', '2'] });
    await send({}, { ...config, toAllUser: true });
    expect(peer.received[0]).toMatchObject({ dept_id_list: '1,2' });
    expect(peer.received[0].userid_list).toBeUndefined();
    expect(peer.received[1]).toMatchObject({ to_all_user: true });
    const nobody = await rejectionOf(send({}, { ...config, userIds: undefined }));
    expect(nobody.retryable).toBe(false);
    expect(nobody.message).toContain('no DingTalk recipient');
  });

  it('a dynamic recipient is the userid_list, in place of the channel’s recipients', async () => {
    const { send, config } = await setUp();
    await send({ recipient: 'ops-7' }, { ...config, deptIds: ['1'] });
    expect(peer.received[0]).toMatchObject({ userid_list: 'ops-7' });
    expect(peer.received[0].dept_id_list).toBeUndefined();
  });

  it('fetches one token for many notices, caches it for its lifetime and refreshes it before expiry', async () => {
    const { send } = await setUp();
    await Promise.all([1, 2, 3].map((i) => send({ content: `n${i}` })));
    expect(peer.tokenCalls).toBe(1);
    clock.advance((7200 - 301) * 1000);
    await send({ content: 'later' });
    expect(peer.tokenCalls).toBe(1);
    clock.advance(2000);
    await send({ content: 'after refresh' });
    expect(peer.tokenCalls).toBe(2);
  });

  it('refetches once when DingTalk says the token expired (42001) or is unknown (40014), and still delivers', async () => {
    const { send } = await setUp();
    await send({ content: 'first' });
    peer.expireTokens();
    await send({ content: 'after expiry' });
    expect(peer.tokenCalls).toBe(2);
    peer.revokeTokens();
    await send({ content: 'after revocation' });
    expect(peer.tokenCalls).toBe(3);
    expect(peer.received).toHaveLength(3);
  });

  it('the same content to the same user twice in a day is reported as DingTalk’s once-a-day refusal', async () => {
    const { send, config } = await setUp();
    const one = { ...config, userIds: ['manager1'] };
    await send({ content: 'same' }, one);
    const again = await rejectionOf(send({ content: 'same' }, one));
    expect(again.retryable).toBe(false);
    expect(again.message).toBe(
      'DingTalk refused the notice: DingTalk delivers the same content to a user only once a day: this notice already reached them today; change the content or send tomorrow (manager1: same content already sent today (DingTalk sends it once a day))',
    );
    // To several, the ones who had it are named and the notice counts as sent.
    const both = await send({ content: 'same' });
    expect(both.reply).toMatch(
      /^not delivered to manager1: same content already sent today \(DingTalk sends it once a day\); task_id /,
    );
    // The next day it goes again.
    clock.advance(86_400_000);
    await send({ content: 'same' }, one);
  });

  it('errcode 143106 on the send itself is worded as the once-a-day refusal, not retried', async () => {
    const { send } = await setUp();
    peer.answerNext(1, 143106, '单应用给单人推送重复消息超限');
    const err = await rejectionOf(send());
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('errcode 143106');
    expect(err.message).toContain('same content to a user only once a day');
  });

  it('busy (-1), HTTP 500 and the per-minute limits (143103, 143104) are retried; 143105, 88 and a bad agent are not', async () => {
    const { send, config } = await setUp();
    peer.failNext(1, 'busy');
    peer.failNext(1, 'http500');
    expect((await rejectionOf(send())).retryable).toBe(true);
    expect((await rejectionOf(send())).retryable).toBe(true);
    for (const code of [143103, 143104]) {
      peer.answerNext(1, code, 'QPM超限');
      expect((await rejectionOf(send())).retryable).toBe(true);
    }
    peer.answerNext(1, 143105, '单应用给单人每日推送量超限');
    const daily = await rejectionOf(send());
    expect(daily.retryable).toBe(false);
    expect(daily.message).toContain('at most 500 work notices a day');
    peer.answerNext(1, 88, 'ding talk error[subcode=60011,submsg=没有调用该接口的权限]');
    expect((await rejectionOf(send())).retryable).toBe(false);
    const agent = await rejectionOf(send({}, { ...config, agentId: 42 }));
    expect(agent.retryable).toBe(false);
    expect(agent.message).toContain('errcode 40056');
  });

  it('a wrong appSecret fails permanently at gettoken and says what to check', async () => {
    const { send, config } = await setUp();
    const err = await rejectionOf(send({}, { ...config, appSecret: 'wrong' }));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('check appKey and appSecret');
    expect(peer.received).toHaveLength(0);
  });

  it('priority changes nothing DingTalk is sent (work notices have none)', async () => {
    const { send } = await setUp();
    await send({ priority: 5, content: 'p' });
    await send({ priority: 1, content: 'p', recipient: 'other' });
    expect(peer.received[0].msg).toEqual(peer.received[1].msg);
  });
});

describe('DingTalk work notice through Herald', () => {
  let herald: TestHerald;
  let peer: DingTalkWorkPeer;
  let channelId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    peer = await startDingTalkWorkPeer();
    channelId = (
      await herald.createChannel('dingtalk-work', {
        appKey: peer.appKey,
        appSecret: peer.appSecret,
        // As a form sends it: text.
        agentId: String(peer.agentId),
        userIds: 'manager1,manager2',
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

  it('keeps the appSecret sealed and masked, and the kind’s hyphenated name', async () => {
    const dto = await herald.console.ok('GET', `/channels/${channelId}`);
    expect(dto.type).toBe('dingtalk-work');
    expect(dto.config).toMatchObject({
      appKey: peer.appKey,
      appSecret: '******',
      agentId: peer.agentId,
      userIds: ['manager1', 'manager2'],
    });
    const row = await Channel.findByPk(channelId);
    expect(JSON.stringify(row?.config)).not.toContain(peer.appSecret);
  });

  it('V1 sends Markdown to the channel’s users and keeps the task_id in the send log', async () => {
    const { token } = await herald.createTask('dtw-v1', [{ channelId, contentType: 'markdown' }]);
    const res = await herald.sendV1({ token, title: 'DTW alert', markdown: '**web-3** 98%' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    const [d] = await finished('DTW alert');
    expect(d.reply).toMatch(/^task_id \d+; /);
    expect(peer.received[peer.received.length - 1]).toMatchObject({
      userid_list: 'manager1,manager2',
      msg: { msgtype: 'markdown', markdown: { title: 'DTW alert' } },
    });
  });

  it('V2 sends one notice per dynamic recipient (userid_list), and refuses one that is not a userid', async () => {
    const { token } = await herald.createTemplate(
      { text: '{{host}} is down', placeholders: [{ key: 'host', label: 'Host' }] },
      [{ channelId, contentType: 'text', dynamicRecipients: true }],
    );
    const bad = await herald.sendV2({ token, title: 'DTW bad', recipients: ['a b'] });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe(
      'recipients: "a b" is not a DingTalk userid (letters, digits, _ and -; at most 64)',
    );
    await herald.sendV2({
      token,
      title: 'DTW down',
      placeholders: { host: 'db-1' },
      recipients: ['ops-1', 'ops-2'],
    });
    expect((await finished('DTW down')).map((d) => d.status)).toEqual(['sent', 'sent']);
    const mine = peer.received.filter(
      (b) => (b.msg as { text?: { content?: string } }).text?.content === 'DTW down\ndb-1 is down',
    );
    expect(mine.map((b) => b.userid_list).sort()).toEqual(['ops-1', 'ops-2']);
  });

  it('the once-a-day refusal fails the delivery at once, in its own words', async () => {
    const { token } = await herald.createTemplate({ text: 'exactly this' }, [
      { channelId, contentType: 'text' },
    ]);
    await herald.sendV2({ token, title: 'DTW same' });
    expect((await finished('DTW same'))[0].status).toBe('sent');
    await herald.sendV2({ token, title: 'DTW same' });
    const rows = await finished('DTW same');
    const failed = rows.find((d) => d.status === 'failed');
    expect(failed).toMatchObject({ attempts: 1 });
    expect(failed?.lastError).toContain('same content to a user only once a day');
  });

  it('"send test" reaches the channel’s users', async () => {
    const before = peer.received.length;
    const res = await herald.console.post(`/channels/${channelId}/test`, {});
    expect(res.status).toBe(200);
    expect(peer.received[before]).toMatchObject({
      userid_list: 'manager1,manager2',
      msg: { msgtype: 'markdown', markdown: { title: 'Herald test message' } },
    });
  });
});
