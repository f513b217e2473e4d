import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { v1RequestSchema, v2RequestSchema } from '../../../contract';
import { Delivery, HostedMessage } from '../../../server/db/models';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/** Every field of a send schema that may be left out: each must also take null. */
const optionalFields = (schema: typeof v1RequestSchema | typeof v2RequestSchema) =>
  Object.entries(schema.shape)
    .filter(([, field]) => field.safeParse(undefined).success)
    .map(([name]) => name);

describe('what Message Nest clients send and read', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let hostedId: number;

  beforeAll(async () => {
    herald = await startTestHerald({ settings: { allowTaskId: true, retry: { maxAttempts: 3 } } });
    peer = await startHttpPeer();
    hostedId = (await herald.createChannel('hosted')).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  describe('null means "not sent"', () => {
    it('the schemas have the optional fields these tests walk through', () => {
      expect(optionalFields(v1RequestSchema)).toEqual(
        expect.arrayContaining(['token', 'task_id', 'text', 'at_all', 'recipients', 'url', 'mode']),
      );
      expect(optionalFields(v2RequestSchema)).toEqual([
        'placeholders',
        'text',
        'recipients',
        'url',
        'attachments',
        'priority',
        'dedupKey',
        'dedupWindow',
        'digestKey',
      ]);
    });

    it('V1 accepts null in each optional field, and in all of them at once', async () => {
      const { task, token } = await herald.createTask('v1-nulls', [
        { channelId: hostedId, contentType: 'text' },
      ]);
      const base = { token, title: 'v1 nulls', text: 'body' };
      for (const field of optionalFields(v1RequestSchema)) {
        // Without the token the task is named by task_id; without text, by markdown.
        const body: Record<string, unknown> = { ...base, [field]: null };
        if (field === 'token') body.task_id = task.id;
        if (field === 'text') body.markdown = 'body';
        const res = await herald.sendV1(body);
        expect({ field, status: res.status, body: res.body.code }).toEqual({
          field,
          status: 200,
          body: 200,
        });
        expect(res.body.data.status).toBe('sent');
      }
      const allNull: Record<string, unknown> = {};
      for (const field of optionalFields(v1RequestSchema)) allNull[field] = null;
      const res = await herald.sendV1({ ...allNull, token, title: 'v1 all nulls', text: 'x' });
      expect(res.body.data.status).toBe('sent');
      const [stored] = await HostedMessage.findAll({ where: { title: 'v1 all nulls' } });
      expect(stored.url).toBeNull();
    });

    it('V2 accepts null in each optional field, and in all of them at once', async () => {
      const { token } = await herald.createTemplate(
        { text: 'hi {{name}}', placeholders: [{ key: 'name', label: 'Name', default: 'you' }] },
        [{ channelId: hostedId, contentType: 'text' }],
      );
      const fields = optionalFields(v2RequestSchema);
      for (const field of [...fields.map((f) => [f]), fields]) {
        const nulls = Object.fromEntries(field.map((f) => [f, null]));
        const res = await herald.sendV2({ token, title: `v2 null ${field.join('+')}`, ...nulls });
        expect({ field, status: res.status, code: res.body.code }).toEqual({
          field,
          status: 200,
          code: 200,
        });
      }
      const [stored] = await herald.waitFor(() =>
        HostedMessage.findAll({ where: { title: 'v2 null placeholders' } }).then((r) =>
          r.length ? r : null,
        ),
      );
      expect(stored.content).toBe('hi you');
    });

    it('a required field sent as null is still refused as missing', async () => {
      const res = await herald.sendV2({ token: null, title: null });
      expect(res.status).toBe(400);
      expect(res.body.msg).toMatch(/token: is required/);
    });
  });

  describe('sendApi.httpStatus', () => {
    it('is "code" by default and refuses other values with a clear message', async () => {
      expect((await herald.console.ok('GET', '/settings')).sendApi).toEqual({ httpStatus: 'code' });
      const bad = await herald.console.put('/settings', { sendApi: { httpStatus: '200' } });
      expect(bad.status).toBe(400);
      expect(bad.body.msg).toMatch(/sendApi\.httpStatus: must be "code" or "always200"/);
    });

    it('"always200" answers HTTP 200 with the code only in the envelope, for every error', async () => {
      const failing = await startHttpPeer({ status: 400, body: 'bad request' });
      const dead = await herald.createChannel('webhook', { url: `${failing.url}/hook` });
      const { token: failToken } = await herald.createTask('v1-fail-200', [
        { channelId: dead.id, contentType: 'text' },
      ]);
      const { task: gone, token: goneToken } = await herald.createTask('v1-gone', [
        { channelId: hostedId, contentType: 'text' },
      ]);
      await herald.console.ok('DELETE', `/tasks/${gone.id}`);
      const { token: v1Token } = await herald.createTask('v1-ok-200', [
        { channelId: hostedId, contentType: 'text' },
      ]);
      const { template, token: v2Token } = await herald.createTemplate({ text: 'x' }, [
        { channelId: hostedId, contentType: 'text' },
      ]);
      await herald.console.ok('PUT', `/templates/${template.id}`, { enabled: false });

      const cases: Array<[string, () => Promise<any>, number, RegExp]> = [
        ['v1 not JSON', () => herald.sendV1('{not json'), 400, /not valid JSON/],
        ['v1 no title', () => herald.sendV1({ token: v1Token, text: 'x' }), 400, /title/],
        [
          'v1 bad token',
          () => herald.sendV1({ token: 'nope', title: 't', text: 'x' }),
          401,
          /token/,
        ],
        [
          'v1 deleted task',
          () => herald.sendV1({ token: goneToken, title: 't', text: 'x' }),
          404,
          /does not exist/,
        ],
        [
          'v1 permanent failure',
          () => herald.sendV1({ token: failToken, title: 't', text: 'x' }),
          500,
          /all deliveries failed/,
        ],
        ['v2 bad token', () => herald.sendV2({ token: 'nope', title: 't' }), 400, /token解析失败/],
        ['v2 disabled', () => herald.sendV2({ token: v2Token, title: 't' }), 400, /模板已禁用/],
      ];

      await herald.console.ok('PUT', '/settings', { sendApi: { httpStatus: 'always200' } });
      try {
        for (const [name, call, code, msg] of cases) {
          const res = await call();
          expect({ name, status: res.status, code: res.body.code }).toEqual({
            name,
            status: 200,
            code,
          });
          expect(res.body.msg).toMatch(msg);
          expect(res.body.data).toBeNull();
        }

        await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 1 });
        expect((await herald.sendV1({ token: v1Token, title: 't', text: 'x' })).status).toBe(200);
        const limited = await herald.sendV1({ token: v1Token, title: 't', text: 'x' });
        expect([limited.status, limited.body.code]).toEqual([200, 429]);
        await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 0 });

        // The cross-site guard refuses browsers before the send API runs: its status stays real.
        const cross = await herald.sendV1(
          { token: v1Token, title: 't', text: 'x' },
          { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.test' },
        );
        expect([cross.status, cross.body.code]).toEqual([403, 403]);
        // The console API is not a send API.
        expect((await herald.console.get('/messages/999999')).status).toBe(404);
      } finally {
        await herald.console.ok('PUT', '/settings', {
          sendApi: { httpStatus: 'code' },
          rateLimitPerMinute: 0,
        });
      }
      try {
        // Back to "code": the status mirrors the code again.
        for (const [name, call, code] of cases) {
          const res = await call();
          expect({ name, status: res.status }).toEqual({ name, status: code });
        }
      } finally {
        await failing.close();
      }
    });
  });

  describe('V1 never invites a resend that duplicates', () => {
    it('answers code 200 "retrying" with results while a failed delivery will be retried', async () => {
      const flaky = await startHttpPeer();
      flaky.script.push({ status: 503, body: 'busy' });
      try {
        const hook = await herald.createChannel('webhook', { url: `${flaky.url}/hook` });
        const { token } = await herald.createTask('v1-retrying', [
          { channelId: hook.id, contentType: 'text' },
        ]);
        const res = await herald.sendV1({ token, title: 'retry me', text: 'x' });
        expect(res.status).toBe(200);
        expect(res.body.code).toBe(200);
        expect(res.body.data.status).toBe('retrying');
        expect(res.body.data.results).toEqual([
          expect.objectContaining({ channelId: hook.id, status: 'retrying' }),
        ]);
        expect(res.body.data.results[0].error).toMatch(/503/);
        // The retry delivers it: once, as the caller had no reason to resend.
        const delivered = await herald.waitFor(async () => {
          const rows = await Delivery.findAll({ where: { sendId: res.body.data.sendId } });
          return rows.length === 1 && rows[0].status === 'sent' ? rows : null;
        });
        expect(delivered[0].attempts).toBe(2);
        expect(flaky.received).toHaveLength(2);
      } finally {
        await flaky.close();
      }
    });

    it('answers 500 when nothing more will be tried (the peer refused it for good)', async () => {
      const refusing = await startHttpPeer({ status: 400, body: 'bad request' });
      try {
        const hook = await herald.createChannel('webhook', { url: `${refusing.url}/hook` });
        const { token } = await herald.createTask('v1-permanent', [
          { channelId: hook.id, contentType: 'text' },
        ]);
        const res = await herald.sendV1({ token, title: 'refused', text: 'x' });
        expect(res.status).toBe(500);
        expect(res.body.data).toBeNull();
        expect(res.body.msg).toMatch(/^all deliveries failed: .*HTTP 400/);
      } finally {
        await refusing.close();
      }
    });
  });

  describe('placeholder keys in any script', () => {
    it('a template with Chinese keys saves and a V2 send fills them', async () => {
      const { token } = await herald.createTemplate(
        {
          placeholders: [
            { key: '服务名', label: '服务名' },
            { key: '级别', label: '级别', default: '警告' },
          ],
          text: '{{服务名}} 状态：{{ 级别 }}',
        },
        [{ channelId: hostedId, contentType: 'text' }],
      );
      const res = await herald.sendV2({
        token,
        title: '中文占位符',
        placeholders: { 服务名: '支付网关' },
      });
      expect(res.body.code).toBe(200);
      const [stored] = await herald.waitFor(() =>
        HostedMessage.findAll({ where: { title: '中文占位符' } }).then((r) =>
          r.length ? r : null,
        ),
      );
      expect(stored.content).toBe('支付网关 状态：警告');
    });

    it('keys with spaces or braces are still refused with what to change', async () => {
      const res = await herald.console.post('/templates', {
        name: 'bad-key',
        text: 'x',
        placeholders: [{ key: '服务 名', label: 'x' }],
      });
      expect(res.status).toBe(400);
      expect(res.body.msg).toMatch(/letters \(any script, e\.g\. 服务名\), digits/);
    });
  });
});
