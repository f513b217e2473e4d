import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Channel, Delivery } from '../../../server/db/models';
import { startDingTalkPeer, type DingTalkPeer } from '../../fixtures/peers/dingtalk-peer';
import { busiestWindow } from '../../fixtures/peers/platform-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

const SECRET = 'SECtestsecret0123456789abcdef';

describe('DingTalk through Herald', () => {
  let herald: TestHerald;
  let peer: DingTalkPeer;
  let channelId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    peer = await startDingTalkPeer({ secret: SECRET });
    channelId = (await herald.createChannel('dingtalk', { webhookUrl: peer.url, secret: SECRET }))
      .id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const delivered = (title: string) =>
    herald.waitFor(async () => {
      const d = await Delivery.findOne({ where: { title } });
      return d && (d.status === 'sent' || d.status === 'failed') ? d : null;
    });

  it('stores the signing secret and the access_token URL sealed and shows them masked', async () => {
    const dto = await herald.console.ok('GET', `/channels/${channelId}`);
    expect(dto.config).toEqual({ webhookUrl: '******', secret: '******' });
    const row = await Channel.findByPk(channelId);
    expect(JSON.stringify(row?.config)).not.toContain(SECRET);
    expect(JSON.stringify(row?.config)).not.toContain(peer.url);
  });

  it('V1 delivers signed markdown whose request and instance mentions fire', async () => {
    const { token } = await herald.createTask('dingtalk-v1', [
      { channelId, contentType: 'markdown', atMobiles: '13900000000' },
    ]);
    const res = await herald.sendV1({
      token,
      title: 'Disk alert',
      markdown: '> web-3 at **98%**',
      at_mobiles: ['13800000000'],
      at_userids: ['user123'],
    });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    const last = peer.received[peer.received.length - 1];
    expect(last.body).toMatchObject({
      msgtype: 'markdown',
      markdown: { title: 'Disk alert' },
      at: { atUserIds: ['user123'], isAtAll: false },
    });
    expect((last.body.at as { atMobiles: string[] }).atMobiles.sort()).toEqual([
      '13800000000',
      '13900000000',
    ]);
    expect(last.firedMentions.sort()).toEqual(['13800000000', '13900000000', 'user123']);
  });

  it('V2 delivers a text template with its placeholders and @all', async () => {
    const { token } = await herald.createTemplate(
      {
        text: '{{host}} at {{use}}',
        placeholders: [
          { key: 'host', label: 'Host' },
          { key: 'use', label: 'Use' },
        ],
        atAll: true,
      },
      [{ channelId, contentType: 'text' }],
    );
    const res = await herald.sendV2({
      token,
      title: 'V2 disk',
      placeholders: { host: 'web-3', use: '98%' },
    });
    expect(res.body).toMatchObject({ code: 200, data: { count: 1 } });
    expect((await delivered('V2 disk')).status).toBe('sent');
    const last = peer.received[peer.received.length - 1];
    expect(last.body).toMatchObject({
      msgtype: 'text',
      text: { content: 'V2 disk\nweb-3 at 98%' },
      at: { isAtAll: true },
    });
  });

  it('a wrong secret fails the delivery at once with DingTalk’s errcode', async () => {
    const wrong = await herald.createChannel('dingtalk', {
      webhookUrl: peer.url,
      secret: 'SECwrong',
    });
    const { token } = await herald.createTask('dingtalk-wrong-secret', [
      { channelId: wrong.id, contentType: 'text' },
    ]);
    const res = await herald.sendV1({ token, title: 'wrong secret', text: 'x' });
    expect(res.body.code).toBe(500);
    expect(res.body.msg).toContain('errcode 310000 sign not match');
    const d = await delivered('wrong secret');
    expect(d).toMatchObject({ status: 'failed', attempts: 1 });
    expect(d.reply).toContain('sign not match');
  });

  it('a busy robot is retried until it takes the message', async () => {
    const { token } = await herald.createTemplate({ text: 'retry me' }, [
      { channelId, contentType: 'text' },
    ]);
    peer.failNext(1, 'busy');
    await herald.sendV2({ token, title: 'busy once' });
    const d = await delivered('busy once');
    expect(d).toMatchObject({ status: 'sent', attempts: 2 });
  });
});

describe('DingTalk burst pacing', () => {
  const clock = new ManualClock();
  let herald: TestHerald;
  let peer: DingTalkPeer;

  beforeAll(async () => {
    herald = await startTestHerald({ clock, startDispatcher: false });
    peer = await startDingTalkPeer({ secret: SECRET, now: () => clock.now() });
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('a burst of 30 to one robot arrives complete and never faster than 20 a minute', async () => {
    const channel = await herald.createChannel('dingtalk', {
      webhookUrl: peer.url,
      secret: SECRET,
    });
    const { token } = await herald.createTemplate({ text: 'burst' }, [
      { channelId: channel.id, contentType: 'text' },
    ]);
    for (let i = 0; i < 30; i++) await herald.sendV2({ token, title: `burst ${i}` });

    const start = clock.now();
    for (let round = 0; round < 20 && peer.received.length < 30; round++) {
      await herald.server.ctx.dispatcher.runDue();
      clock.advance(5_000);
    }

    expect(peer.received).toHaveLength(30);
    expect(peer.rateLimited).toBe(0);
    const titles = peer.received.map((r) => (r.body.text as { content: string }).content);
    expect(new Set(titles).size).toBe(30);
    expect(busiestWindow(peer.receivedAt, 60_000)).toBe(20);
    expect(peer.receivedAt[29] - start).toBeGreaterThanOrEqual(60_000);
    const deliveries = await Delivery.findAll({ where: { channelId: channel.id } });
    expect(deliveries).toHaveLength(30);
    expect(deliveries.every((d) => d.status === 'sent' && d.attempts === 1)).toBe(true);
  });
});
