import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Channel, Delivery } from '../../../server/db/models';
import { busiestWindow } from '../../fixtures/peers/platform-peer';
import { startWeComPeer, type WeComPeer } from '../../fixtures/peers/wecom-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

describe('WeCom through Herald', () => {
  let herald: TestHerald;
  let peer: WeComPeer;
  let channelId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    peer = await startWeComPeer();
    channelId = (await herald.createChannel('wecom', { webhookUrl: peer.url })).id;
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

  it('keeps the webhook URL (it holds the robot key) sealed and masked', async () => {
    const dto = await herald.console.ok('GET', `/channels/${channelId}`);
    expect(dto.config.webhookUrl).toBe('******');
    const row = await Channel.findByPk(channelId);
    expect(JSON.stringify(row?.config)).not.toContain(new URL(peer.url).searchParams.get('key'));
  });

  it('V1 delivers text with mention lists inside the text object', async () => {
    const { token } = await herald.createTask('wecom-v1', [{ channelId, contentType: 'text' }]);
    const res = await herald.sendV1({
      token,
      title: 'Disk alert',
      text: 'web-3 at 98%',
      at_mobiles: ['13800000000'],
      at_userids: ['zhangsan'],
      at_all: true,
    });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(peer.received[peer.received.length - 1]).toEqual({
      msgtype: 'text',
      text: {
        content: 'Disk alert\nweb-3 at 98%',
        mentioned_list: ['zhangsan', '@all'],
        mentioned_mobile_list: ['13800000000'],
      },
    });
  });

  it('V2 delivers a markdown template with inline <@userid> mentions', async () => {
    const { token } = await herald.createTemplate(
      {
        markdown: '>host: <font color="warning">{{host}}</font>',
        placeholders: [{ key: 'host', label: 'Host' }],
        atUserIds: 'zhangsan',
      },
      [{ channelId, contentType: 'markdown' }],
    );
    await herald.sendV2({ token, title: 'V2 disk', placeholders: { host: 'web-3' } });
    expect((await finished('V2 disk')).status).toBe('sent');
    expect(peer.received[peer.received.length - 1]).toEqual({
      msgtype: 'markdown',
      markdown: {
        content: '### V2 disk\n\n>host: <font color="warning">web-3</font>\n\n<@zhangsan>',
      },
    });
  });

  it('text over 2048 bytes fails at once with a clear reason and reaches no robot', async () => {
    const { token } = await herald.createTask('wecom-long', [{ channelId, contentType: 'text' }]);
    const before = peer.requests;
    const res = await herald.sendV1({ token, title: 'too long', text: '长'.repeat(700) });
    expect(res.body.code).toBe(500);
    expect(res.body.msg).toMatch(/message too large for WeCom: text content is \d+ bytes/);
    expect(await finished('too long')).toMatchObject({ status: 'failed', attempts: 1 });
    expect(peer.requests).toBe(before);
  });

  it('HTTP 500 from WeCom is retried until the robot takes the message', async () => {
    const { token } = await herald.createTemplate({ text: 'retry' }, [
      { channelId, contentType: 'text' },
    ]);
    peer.failNext(1, 'http500');
    await herald.sendV2({ token, title: 'http 500 once' });
    expect(await finished('http 500 once')).toMatchObject({ status: 'sent', attempts: 2 });
  });
});

describe('WeCom burst pacing', () => {
  const clock = new ManualClock();
  let herald: TestHerald;
  let peer: WeComPeer;

  beforeAll(async () => {
    herald = await startTestHerald({ clock, startDispatcher: false });
    peer = await startWeComPeer({ now: () => clock.now() });
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('a burst of 30 to one robot arrives complete and never faster than 20 a minute', async () => {
    const channel = await herald.createChannel('wecom', { webhookUrl: peer.url });
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
    const contents = peer.received.map((b) => (b.text as { content: string }).content);
    expect(new Set(contents).size).toBe(30);
    expect(busiestWindow(peer.receivedAt, 60_000)).toBe(20);
    expect(peer.receivedAt[29] - start).toBeGreaterThanOrEqual(60_000);
  });
});
