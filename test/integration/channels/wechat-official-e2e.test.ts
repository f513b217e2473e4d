import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Delivery } from '../../../server/db/models';
import { startWeChatPeer, type WeChatPeer } from '../../fixtures/peers/wechat-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

const FOLLOWERS = ['oFOLLOWER_0001', 'oFOLLOWER_0002'];

describe('WeChat official account through Herald', () => {
  let herald: TestHerald;
  let peer: WeChatPeer;
  let channelId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    peer = await startWeChatPeer({ followers: FOLLOWERS, unfollowed: ['oGONE_0001'] });
    channelId = (
      await herald.createChannel('wechat_official', {
        appId: peer.appId,
        appSecret: peer.appSecret,
        templateId: peer.templateId,
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

  it('shows the appSecret masked', async () => {
    const dto = await herald.console.ok('GET', `/channels/${channelId}`);
    expect(dto.config).toMatchObject({ appId: peer.appId, appSecret: '******' });
  });

  it('V1 sends a template message to the instance’s OpenID with the send’s url', async () => {
    const { token } = await herald.createTask('wechat-v1', [
      { channelId, contentType: 'text', recipient: FOLLOWERS[0] },
    ]);
    const res = await herald.sendV1({
      token,
      title: 'Disk alert',
      text: 'web-3 at 98%',
      url: 'https://example.com/d/1',
    });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(peer.received[peer.received.length - 1]).toMatchObject({
      touser: FOLLOWERS[0],
      template_id: peer.templateId,
      url: 'https://example.com/d/1',
      data: { title: { value: 'Disk alert' }, content: { value: 'web-3 at 98%' } },
    });
  });

  it('V2 sends one template message per dynamic recipient on a single token', async () => {
    const { token } = await herald.createTemplate(
      { text: '{{host}} is down', placeholders: [{ key: 'host', label: 'Host' }] },
      [{ channelId, contentType: 'text', dynamicRecipients: true }],
    );
    const res = await herald.sendV2({
      token,
      title: 'V2 down',
      placeholders: { host: 'db-1' },
      recipients: FOLLOWERS,
    });
    expect(res.body.code).toBe(200);
    const rows = await finished('V2 down');
    expect(rows.map((d) => d.status)).toEqual(['sent', 'sent']);
    const mine = peer.received.filter(
      (b) => (b.data as { title: { value: string } }).title.value === 'V2 down',
    );
    expect(mine.map((b) => b.touser).sort()).toEqual(FOLLOWERS);
    expect(
      mine.every(
        (b) => (b.data as { content: { value: string } }).content.value === 'db-1 is down',
      ),
    ).toBe(true);
    expect(peer.tokenCalls).toBe(1);
  });

  it('V2 refuses a recipient that is not an OpenID before queueing anything', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId, contentType: 'text', dynamicRecipients: true },
    ]);
    const res = await herald.sendV2({ token, title: 'bad openid', recipients: ['a@b.c'] });
    expect(res.body.code).toBe(400);
    expect(res.body.msg).toMatch(/^recipients: "a@b.c" is not an OpenID/);
    expect(await Delivery.count({ where: { title: 'bad openid' } })).toBe(0);
  });

  it('a recipient who unfollowed the account fails at once with errcode 43004', async () => {
    const { token } = await herald.createTask('wechat-gone', [
      { channelId, contentType: 'text', recipient: 'oGONE_0001' },
    ]);
    const res = await herald.sendV1({ token, title: 'unfollowed', text: 'x' });
    expect(res.body.code).toBe(500);
    expect(res.body.msg).toContain('errcode 43004');
    const [d] = await finished('unfollowed');
    expect(d).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('an expired token is refreshed once and the message still goes out', async () => {
    const { token } = await herald.createTask('wechat-expired', [
      { channelId, contentType: 'text', recipient: FOLLOWERS[1] },
    ]);
    const calls = peer.tokenCalls;
    peer.expireTokens();
    const res = await herald.sendV1({ token, title: 'after expiry', text: 'x' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(peer.tokenCalls).toBe(calls + 1);
  });
});
