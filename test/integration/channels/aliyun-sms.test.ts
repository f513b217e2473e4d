import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  aliyunSmsConfigSchema,
  createAliyunSmsAdapter,
  type AliyunSmsConfig,
} from '../../../server/channels/aliyun-sms';
import { Channel, Delivery } from '../../../server/db/models';
import {
  startAliyunSmsPeer,
  type AliyunSmsPeer,
  type AliyunSmsPeerOptions,
} from '../../fixtures/peers/aliyun-sms-peer';
import { rejectionOf } from '../../fixtures/peers/expect-delivery-error';
import {
  adapterRuntime,
  manualClock,
  outboundMessage,
} from '../../fixtures/peers/outbound-message';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

describe('Aliyun SMS adapter against a local dysmsapi', () => {
  const clock = manualClock();
  const services = adapterRuntime(clock);
  const adapter = createAliyunSmsAdapter();
  let peer: AliyunSmsPeer;

  afterEach(async () => {
    await peer?.close();
  });

  async function setUp(options: AliyunSmsPeerOptions = {}, extra: Record<string, unknown> = {}) {
    peer = await startAliyunSmsPeer({ now: clock.now, ...options });
    const config: AliyunSmsConfig = aliyunSmsConfigSchema.parse({
      accessKeyId: peer.accessKeyId,
      accessKeySecret: peer.accessKeySecret,
      signName: peer.signName,
      templateCode: peer.templateCode,
      endpoint: peer.endpoint,
      ...extra,
    });
    const send = (overrides: Parameters<typeof outboundMessage>[0] = {}, cfg = config) =>
      adapter.send(cfg, outboundMessage({ recipient: '13800000000', ...overrides }), services);
    return { config, send };
  }

  it('send() posts a signed SendSms the peer verifies, with the template parameters', async () => {
    const { send } = await setUp();
    const receipt = await send({ content: '磁盘 98% & more: a+b=c * ~' });
    expect(receipt.reply).toMatch(/^BizId \d+\^\d+$/);
    expect(peer.received).toHaveLength(1);
    const [{ method, params }] = peer.received;
    expect(method).toBe('POST');
    expect(params).toMatchObject({
      Action: 'SendSms',
      PhoneNumbers: '13800000000',
      SignName: peer.signName,
      TemplateCode: peer.templateCode,
      TemplateParam: '{"content":"磁盘 98% & more: a+b=c * ~"}',
      RegionId: 'cn-hangzhou',
    });
  });

  it('send() maps title, content and url through paramMap', async () => {
    const { send } = await setUp(
      { templates: { SMS_200002: ['name', 'detail', 'app'] } },
      {
        templateCode: 'SMS_200002',
        paramMap: { name: '{{title}}', detail: '{{content}} {{url}}', app: 'Herald' },
      },
    );
    await send({ url: 'https://x.example/1' });
    expect(JSON.parse(peer.received[0].params.TemplateParam)).toEqual({
      name: 'Disk alert',
      detail: 'web-3 at 98% https://x.example/1',
      app: 'Herald',
    });
  });

  it('send() fails permanently with SignatureDoesNotMatch on a wrong secret', async () => {
    const { send, config } = await setUp();
    const err = await rejectionOf(send({}, { ...config, accessKeySecret: 'wrong' }));
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('SignatureDoesNotMatch');
    expect(err.message).toContain('accessKeySecret is wrong');
    expect(peer.received).toHaveLength(0);
  });

  it('send() fails permanently on an unknown sign name, template or missing variable', async () => {
    const { send, config } = await setUp();
    const sign = await rejectionOf(send({}, { ...config, signName: '别的签名' }));
    expect(sign.message).toContain('isv.SMS_SIGNATURE_ILLEGAL');
    expect(sign.retryable).toBe(false);
    const tpl = await rejectionOf(send({}, { ...config, templateCode: 'SMS_999' }));
    expect(tpl.message).toContain('isv.SMS_TEMPLATE_ILLEGAL');
    const vars = await rejectionOf(send({}, { ...config, paramMap: { other: '{{content}}' } }));
    expect(vars.retryable).toBe(false);
    expect(vars.message).toContain('isv.TEMPLATE_MISSING_PARAMETERS');
  });

  it('send() uses the message’s template code over the channel’s, and fails without either', async () => {
    const { send, config } = await setUp({
      templates: { SMS_100001: ['content'], SMS_300003: ['content'] },
    });
    await send({ templateCode: 'SMS_300003' });
    expect(peer.received[0].params.TemplateCode).toBe('SMS_300003');
    const { templateCode: _code, ...bare } = config;
    await send({ templateCode: 'SMS_300003' }, bare);
    expect(peer.received[1].params.TemplateCode).toBe('SMS_300003');
    const none = await rejectionOf(send({ templateCode: null }, bare));
    expect(none.retryable).toBe(false);
    expect(none.message).toContain('no SMS template code');
    expect(peer.received).toHaveLength(2);
  });

  it('send() refuses a clock more than 15 minutes off', async () => {
    const { send } = await setUp({ now: () => clock.now() + 20 * 60_000 });
    const err = await rejectionOf(send());
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('InvalidTimeStamp.Expired');
  });

  it('send() fails transiently on flow control, isp.SYSTEM_ERROR and HTTP 500', async () => {
    const { send } = await setUp();
    peer.limitNext(1);
    const limited = await rejectionOf(send());
    expect(limited).toMatchObject({ retryable: true, retryAfterMs: 60_000 });
    expect(limited.message).toContain('isv.BUSINESS_LIMIT_CONTROL');
    peer.failNext(1, 'busy');
    peer.failNext(1, 'http500');
    expect((await rejectionOf(send())).message).toContain('isp.SYSTEM_ERROR');
    expect((await rejectionOf(send())).retryable).toBe(true);
    await send();
    expect(peer.received).toHaveLength(1);
  });

  it('send() signs every attempt with a fresh nonce, so a retry is not refused as a replay', async () => {
    const { send } = await setUp();
    const message = { deliveryId: 4242, content: 'same delivery' };
    peer.failNext(1, 'http500');
    await rejectionOf(send(message));
    await send(message);
    expect(peer.received).toHaveLength(1);
    expect(peer.received[0].params.OutId).toMatch(/^herald-4242-/);
  });
});

describe('Aliyun SMS through Herald', () => {
  let herald: TestHerald;
  let peer: AliyunSmsPeer;
  let channelId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { retry: { maxAttempts: 3 } } });
    // A second approved template, for instances that name their own code.
    peer = await startAliyunSmsPeer({
      templates: { SMS_100001: ['content'], SMS_300003: ['content'] },
    });
    channelId = (
      await herald.createChannel('aliyun_sms', {
        accessKeyId: peer.accessKeyId,
        accessKeySecret: peer.accessKeySecret,
        signName: peer.signName,
        templateCode: peer.templateCode,
        endpoint: peer.endpoint,
      })
    ).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const finished = (title: string) =>
    herald.waitFor(async () => {
      const rows = await Delivery.findAll({ where: { title }, order: [['id', 'ASC']] });
      return rows.length > 0 && rows.every((d) => d.status === 'sent' || d.status === 'failed')
        ? rows
        : null;
    });

  it('keeps accessKeySecret sealed and masked and fills in the paramMap default', async () => {
    const dto = await herald.console.ok('GET', `/channels/${channelId}`);
    expect(dto.config).toMatchObject({
      accessKeyId: peer.accessKeyId,
      accessKeySecret: '******',
      paramMap: { content: '{{content}}' },
    });
    const row = await Channel.findByPk(channelId);
    expect(JSON.stringify(row?.config)).not.toContain(peer.accessKeySecret);
  });

  it('refuses a fixed recipient holding several numbers, saying how to reach several', async () => {
    const task = await herald.console.ok('POST', '/tasks', { name: 'sms-bad' });
    const res = await herald.console.post(`/tasks/${task.id}/instances`, {
      channelId,
      contentType: 'text',
      recipient: '13800000000,13900000000',
    });
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(
      /^recipient: "13800000000,13900000000" holds several phone numbers/,
    );
  });

  it('V1 sends the text to the instance’s number', async () => {
    const { token } = await herald.createTask('sms-v1', [
      { channelId, contentType: 'text', recipient: '13800000000' },
    ]);
    const res = await herald.sendV1({ token, title: 'Disk alert', text: 'web-3 at 98%' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(peer.received[peer.received.length - 1].params).toMatchObject({
      PhoneNumbers: '13800000000',
      TemplateParam: '{"content":"web-3 at 98%"}',
    });
  });

  it('an instance’s own template code is what Aliyun receives; without one, the channel’s', async () => {
    const { token } = await herald.createTask('sms-codes', [
      { channelId, contentType: 'text', recipient: '13800000005', templateCode: 'SMS_300003' },
      { channelId, contentType: 'text', recipient: '13800000006' },
    ]);
    const res = await herald.sendV1({ token, title: 'per-instance code', text: 'codes' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    const codeFor = (phone: string) =>
      peer.received.find((r) => r.params.PhoneNumbers === phone)?.params.TemplateCode;
    expect(codeFor('13800000005')).toBe('SMS_300003');
    expect(codeFor('13800000006')).toBe(peer.templateCode);
  });

  it('a channel without a template code sends with each instance’s, and needs one on each', async () => {
    const bare = await herald.createChannel('aliyun_sms', {
      accessKeyId: peer.accessKeyId,
      accessKeySecret: peer.accessKeySecret,
      signName: peer.signName,
      endpoint: peer.endpoint,
    });
    const task = await herald.console.ok('POST', '/tasks', { name: 'sms-bare' });
    const without = await herald.console.post(`/tasks/${task.id}/instances`, {
      channelId: bare.id,
      contentType: 'text',
      recipient: '13800000007',
    });
    expect(without.status).toBe(400);
    expect(without.body.msg).toMatch(/^templateCode: channel \d+ names no template code/);
    const inst = await herald.console.ok('POST', `/tasks/${task.id}/instances`, {
      channelId: bare.id,
      contentType: 'text',
      recipient: '13800000007',
      templateCode: 'SMS_300003',
    });
    expect(inst.templateCode).toBe('SMS_300003');
    const cleared = await herald.console.patch(`/instances/${inst.id}`, { templateCode: '' });
    expect(cleared.status).toBe(400);
    const { token } = await herald.console.ok('GET', `/tasks/${task.id}/token`);
    const res = await herald.sendV1({ token, title: 'bare channel', text: 'x' });
    expect(res.body).toMatchObject({ code: 200, data: { status: 'sent' } });
    expect(
      peer.received.find((r) => r.params.PhoneNumbers === '13800000007')?.params.TemplateCode,
    ).toBe('SMS_300003');
  });

  it('refuses a template code on an instance of another kind, and a malformed one', async () => {
    const hosted = await herald.createChannel('hosted', {});
    const task = await herald.console.ok('POST', '/tasks', { name: 'sms-other-kind' });
    const other = await herald.console.post(`/tasks/${task.id}/instances`, {
      channelId: hosted.id,
      contentType: 'text',
      templateCode: 'SMS_300003',
    });
    expect(other.status).toBe(400);
    expect(other.body.msg).toMatch(/^templateCode: only Aliyun SMS instances/);
    const bad = await herald.console.post(`/tasks/${task.id}/instances`, {
      channelId,
      contentType: 'text',
      recipient: '13800000008',
      templateCode: 'SMS 1',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/^templateCode must be the template’s code/);
  });

  it('V2 sends one SMS per dynamic number: a bad number fails alone', async () => {
    const { token } = await herald.createTemplate(
      { text: '{{host}} is down', placeholders: [{ key: 'host', label: 'Host' }] },
      [{ channelId, contentType: 'text', dynamicRecipients: true }],
    );
    const res = await herald.sendV2({
      token,
      title: 'V2 sms',
      placeholders: { host: 'db-1' },
      recipients: ['13800000001', '+85212345678'],
    });
    expect(res.body.code).toBe(200);
    const rows = await finished('V2 sms');
    expect(rows.map((d) => [d.recipient, d.status])).toEqual([
      ['13800000001', 'sent'],
      ['+85212345678', 'sent'],
    ]);
    const bad = await herald.sendV2({
      token,
      title: 'bad number',
      recipients: ['ops@example.com'],
    });
    expect(bad.body.code).toBe(400);
    expect(bad.body.msg).toMatch(/^recipients: "ops@example.com" is not a phone number/);
  });

  it('a throttled send is retried and delivered', async () => {
    const { token } = await herald.createTemplate({ text: 'retry me' }, [
      { channelId, contentType: 'text', recipient: '13800000002' },
    ]);
    peer.failNext(1, 'busy');
    await herald.sendV2({ token, title: 'busy once' });
    const [d] = await finished('busy once');
    expect(d).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('a wrong secret fails at once with SignatureDoesNotMatch', async () => {
    const wrong = await herald.createChannel('aliyun_sms', {
      accessKeyId: peer.accessKeyId,
      accessKeySecret: 'wrong-secret',
      signName: peer.signName,
      templateCode: peer.templateCode,
      endpoint: peer.endpoint,
    });
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: wrong.id, contentType: 'text', recipient: '13800000003' },
    ]);
    await herald.sendV2({ token, title: 'wrong sms secret' });
    const [d] = await finished('wrong sms secret');
    expect(d).toMatchObject({ status: 'failed', attempts: 1 });
    expect(d.lastError).toContain('SignatureDoesNotMatch');
  });
});

describe('Aliyun SMS flow control through Herald', () => {
  const clock = new ManualClock();
  let herald: TestHerald;
  let peer: AliyunSmsPeer;

  beforeAll(async () => {
    herald = await startTestHerald({ clock, startDispatcher: false });
    peer = await startAliyunSmsPeer({ now: () => clock.now() });
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  it('isv.BUSINESS_LIMIT_CONTROL waits a minute, then the SMS goes out', async () => {
    const channel = await herald.createChannel('aliyun_sms', {
      accessKeyId: peer.accessKeyId,
      accessKeySecret: peer.accessKeySecret,
      signName: peer.signName,
      templateCode: peer.templateCode,
      endpoint: peer.endpoint,
    });
    const { token } = await herald.createTemplate({ text: 'limited' }, [
      { channelId: channel.id, contentType: 'text', recipient: '13800000004' },
    ]);
    peer.limitNext(1);
    await herald.sendV2({ token, title: 'flow control' });
    await herald.server.ctx.dispatcher.runDue();
    const first = await Delivery.findOne({ where: { title: 'flow control' } });
    expect(first).toMatchObject({
      status: expect.not.stringMatching(/^(sent|failed)$/),
      attempts: 1,
    });
    expect(first?.lastError).toContain('isv.BUSINESS_LIMIT_CONTROL');

    clock.advance(30_000);
    await herald.server.ctx.dispatcher.runDue();
    expect(peer.received).toHaveLength(0);
    clock.advance(31_000);
    await herald.server.ctx.dispatcher.runDue();
    expect(peer.received).toHaveLength(1);
    const done = await Delivery.findOne({ where: { title: 'flow control' } });
    expect(done).toMatchObject({ status: 'sent', attempts: 2 });
  });
});
