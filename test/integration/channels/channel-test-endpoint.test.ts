import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startDingTalkPeer, type DingTalkPeer } from '../../fixtures/peers/dingtalk-peer';
import { startSmtpSink, type SmtpSink } from '../../fixtures/peers/smtp-sink';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

describe('POST /api/console/channels/:id/test against platform peers', () => {
  let herald: TestHerald;
  let robot: DingTalkPeer;
  let sink: SmtpSink;

  beforeAll(async () => {
    herald = await startTestHerald();
    robot = await startDingTalkPeer({ secret: 'SECright', keywords: ['Herald'] });
    sink = await startSmtpSink({ mode: 'starttls' });
  });
  afterAll(async () => {
    await herald.close(true);
    await robot.close();
    await sink.close();
  });

  it('ChannelService.test() delivers to a signed robot and returns its reply', async () => {
    const ch = await herald.createChannel('dingtalk', {
      webhookUrl: robot.url,
      secret: 'SECright',
    });
    const res = await herald.console.ok('POST', `/channels/${ch.id}/test`, {});
    expect(res).toMatchObject({ ok: true, error: null });
    expect(res.reply).toMatch(/"errcode":0/);
    expect(robot.received).toHaveLength(1);
  });

  it('ChannelService.test() shows the platform refusal for a wrong signing secret', async () => {
    const ch = await herald.createChannel('dingtalk', {
      webhookUrl: robot.url,
      secret: 'SECwrong',
    });
    const res = await herald.console.ok('POST', `/channels/${ch.id}/test`, {});
    expect(res.ok).toBe(false);
    expect(res.error).toMatch(/310000/);
    expect(res.reply).toMatch(/sign not match/);
  });

  it('ChannelService.test() asks for a recipient for email and sends a real mail to it', async () => {
    const ch = await herald.createChannel('email', {
      host: sink.host,
      port: sink.port,
      secure: 'starttls',
      username: 'herald',
      password: 'sink-password',
      from: 'herald@example.com',
      fromName: 'Herald',
      allowSelfSigned: true,
    });
    const missing = await herald.console.post(`/channels/${ch.id}/test`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toMatch(/^recipient: /);
    const res = await herald.console.ok('POST', `/channels/${ch.id}/test`, {
      recipient: 'ops@example.com',
      title: '测试 Test',
    });
    expect(res.ok).toBe(true);
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0].parsed.subject).toBe('测试 Test');
    expect(sink.received[0].envelopeTo).toEqual(['ops@example.com']);
  });
});
