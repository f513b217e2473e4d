import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Channel, Delivery } from '../../../server/db/models';
import { startPushPlusPeer, type PushPlusPeer } from '../../fixtures/peers/pushplus-peer';
import { startServerChanPeer, type ServerChanPeer } from '../../fixtures/peers/serverchan-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

/**
 * PushPlus and ServerChan through a real Herald: made in the console from their declared
 * fields, tried with "send test", and sent to through V1 and V2, reaching local peers that
 * check what each platform checks.
 */
describe('PushPlus and ServerChan through Herald', () => {
  let herald: TestHerald;
  let pushplus: PushPlusPeer;
  let serverchan: ServerChanPeer;
  let pushplusId: number;
  let turboId: number;
  let sc3Id: number;

  beforeAll(async () => {
    [herald, pushplus, serverchan] = await Promise.all([
      startTestHerald({ settings: { retry: { maxAttempts: 3 } } }),
      startPushPlusPeer(),
      startServerChanPeer(),
    ]);
    pushplusId = (
      await herald.createChannel('pushplus', {
        token: pushplus.token,
        topic: 'ops',
        baseUrl: pushplus.baseUrl,
      })
    ).id;
    turboId = (
      await herald.createChannel('serverchan', {
        sendKey: serverchan.turboKey,
        noip: true,
        baseUrl: serverchan.baseUrl,
      })
    ).id;
    sc3Id = (
      await herald.createChannel('serverchan', {
        sendKey: serverchan.sc3Key,
        tags: 'ops|disk',
        baseUrl: serverchan.baseUrl,
      })
    ).id;
  });
  afterAll(async () => {
    await herald?.close(true);
    await Promise.all([pushplus?.close(), serverchan?.close()]);
  });

  const finished = (title: string) =>
    herald.waitFor(async () => {
      const rows = await Delivery.findAll({ where: { title } });
      return rows.length > 0 && rows.every((d) => d.status === 'sent' || d.status === 'failed')
        ? rows
        : null;
    });

  it('GET /channel-types declares both kinds’ fields, secrets and destinations', async () => {
    const kinds = (await herald.console.ok('GET', '/channel-types')) as Array<{
      type: string;
      supportsDynamicRecipients: boolean;
      fields: Array<{ key: string; secret: boolean; destination: boolean; help: string | null }>;
    }>;
    const pp = kinds.find((k) => k.type === 'pushplus')!;
    const sc = kinds.find((k) => k.type === 'serverchan')!;
    expect(pp.supportsDynamicRecipients).toBe(true);
    expect(sc.supportsDynamicRecipients).toBe(false);
    expect(pp.fields.map((f) => f.key)).toEqual([
      'token',
      'template',
      'topic',
      'channel',
      'to',
      'dailyLimit',
      'baseUrl',
      'proxy',
      'timeoutMs',
    ]);
    expect(pp.fields.find((f) => f.key === 'dailyLimit')?.help).toBe(
      'channelHelp.pushPlusDailyLimit',
    );
    expect(pp.fields.filter((f) => f.secret).map((f) => f.key)).toEqual(['token']);
    expect(pp.fields.filter((f) => f.destination).map((f) => f.key)).toEqual(['baseUrl']);
    expect(sc.fields.filter((f) => f.secret).map((f) => f.key)).toEqual(['sendKey']);
    expect(sc.fields.filter((f) => f.destination).map((f) => f.key)).toEqual(['baseUrl']);
  });

  it('masks and seals the token and the SendKey; a new baseUrl needs them typed again', async () => {
    for (const [id, field, secret] of [
      [pushplusId, 'token', pushplus.token],
      [turboId, 'sendKey', serverchan.turboKey],
    ] as const) {
      const dto = await herald.console.ok('GET', `/channels/${id}`);
      expect(dto.config[field]).toBe('******');
      expect(JSON.stringify((await Channel.findByPk(id))?.config)).not.toContain(secret);
      const moved = await herald.console.request('PUT', `/channels/${id}`, {
        config: { ...dto.config, baseUrl: 'https://elsewhere.example' },
      });
      expect(moved.status).toBe(400);
      expect(moved.body.msg).toMatch(new RegExp(`^config: re-enter ${field}: baseUrl changed`));
    }
  });

  it('"send test" reaches each peer, and shows a refusal with the platform’s words', async () => {
    const ok = await herald.console.ok('POST', `/channels/${pushplusId}/test`, {});
    expect(ok).toMatchObject({ ok: true, error: null });
    expect(ok.reply).toMatch(/^serial pp\d+; HTTP 200/);
    expect(pushplus.received.at(-1)).toMatchObject({ title: 'Herald test message', topic: 'ops' });
    const sc = await herald.console.ok('POST', `/channels/${sc3Id}/test`, {});
    expect(sc).toMatchObject({ ok: true, error: null });
    expect(serverchan.received.at(-1)).toMatchObject({ edition: 'sc3' });
    const unsaved = await herald.console.ok('POST', '/channels/test', {
      type: 'pushplus',
      config: { token: 'wrong-token', baseUrl: pushplus.baseUrl },
    });
    expect(unsaved.ok).toBe(false);
    expect(unsaved.error).toContain('code 903');
    expect(unsaved.error).not.toContain('wrong-token');
  });

  it('V1 sends Markdown to PushPlus and to both ServerChan editions', async () => {
    const { token } = await herald.createTask('pp-sc-v1', [
      { channelId: pushplusId, contentType: 'markdown' },
      { channelId: turboId, contentType: 'markdown' },
      { channelId: sc3Id, contentType: 'markdown' },
    ]);
    const res = await herald.sendV1({ token, title: 'Disk alert', markdown: '**web-3** at 98%' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(pushplus.received.at(-1)).toMatchObject({
      title: 'Disk alert',
      content: '**web-3** at 98%',
      template: 'markdown',
    });
    const [turbo, sc3] = [
      serverchan.received.filter((m) => m.edition === 'turbo').at(-1),
      serverchan.received.filter((m) => m.edition === 'sc3').at(-1),
    ];
    expect(turbo?.fields).toEqual({
      title: 'Disk alert',
      desp: '**web-3** at 98%',
      short: 'web-3 at 98%',
      noip: 1,
    });
    expect(sc3?.fields).toEqual({
      title: 'Disk alert',
      desp: '**web-3** at 98%',
      short: 'web-3 at 98%',
      tags: 'ops|disk',
    });
  });

  it('V2 HTML reaches PushPlus as html; ServerChan gets it as Markdown', async () => {
    const { token } = await herald.createTemplate({ html: '<p><b>db-1</b> is down</p>' }, [
      { channelId: pushplusId, contentType: 'html' },
      { channelId: turboId, contentType: 'markdown' },
    ]);
    await herald.sendV2({ token, title: 'V2 html' });
    await finished('V2 html');
    expect(pushplus.received.at(-1)).toMatchObject({
      template: 'html',
      content: '<p><b>db-1</b> is down</p>',
    });
    const desp = serverchan.received.at(-1)?.fields.desp;
    expect(desp).toContain('db-1');
    expect(desp).not.toContain('<');
  });

  it('a dynamic-recipient PushPlus instance sends the call’s recipients as `to`, one each', async () => {
    const { token } = await herald.createTemplate({ text: 'rotate keys' }, [
      { channelId: pushplusId, contentType: 'text', dynamicRecipients: true },
    ]);
    const res = await herald.sendV2({
      token,
      title: 'V2 friends',
      recipients: ['friend-a', 'friend-b'],
    });
    expect(res.body.code).toBe(200);
    const rows = await finished('V2 friends');
    expect(rows.map((d) => d.status)).toEqual(['sent', 'sent']);
    const mine = pushplus.received.filter((m) => m.title === 'V2 friends');
    expect(mine.map((m) => m.to).sort()).toEqual(['friend-a', 'friend-b']);
    const bad = await herald.sendV2({ token, title: 'V2 bad friend', recipients: ['a b'] });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/^recipients: "a b" is not a PushPlus friend token/);
  });

  it('a wrong SendKey fails at once with ServerChan’s message, without retries', async () => {
    const wrong = await herald.createChannel('serverchan', {
      sendKey: 'SCT000000TNotAKey',
      baseUrl: serverchan.baseUrl,
    });
    const { token } = await herald.createTemplate({ markdown: 'x' }, [
      { channelId: wrong.id, contentType: 'markdown' },
    ]);
    await herald.sendV2({ token, title: 'sc wrong key' });
    const [d] = await finished('sc wrong key');
    expect(d).toMatchObject({ status: 'failed', attempts: 1 });
    expect(d.lastError).toBe('ServerChan refused the message: code 40001: bad pushtoken');
  });

  it('PushPlus system errors (code 500) are retried; a bad token (903) is not', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: pushplusId, contentType: 'text' },
    ]);
    pushplus.script({ status: 200, body: { code: 500, msg: '系统异常', data: null } });
    await herald.sendV2({ token, title: 'pp 500 once' });
    expect((await finished('pp 500 once'))[0]).toMatchObject({ status: 'sent', attempts: 2 });
    const bad = await herald.createChannel('pushplus', {
      token: 'not-a-token',
      baseUrl: pushplus.baseUrl,
    });
    const t2 = await herald.createTemplate({ text: 'x' }, [
      { channelId: bad.id, contentType: 'text' },
    ]);
    await herald.sendV2({ token: t2.token, title: 'pp 903' });
    const [d] = await finished('pp 903');
    expect(d).toMatchObject({ status: 'failed', attempts: 1 });
    expect(d.lastError).toContain('code 903');
  });
});
