import { gzipSync } from 'node:zlib';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Channel, HostedMessage, Send } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { rawRequest, type RawRequest, type RawResponse } from '../../helpers/exact-request';

const nestedArrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const nestedObjects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('bad input is a 4xx with a clear msg, never a 500', () => {
  let herald: TestHerald;
  let port: number;
  let templateToken: string;
  let taskId: number;

  beforeAll(async () => {
    herald = await startTestHerald();
    port = herald.server.port;
    const hosted = await herald.createChannel('hosted');
    ({ token: templateToken } = await herald.createTemplate(
      { text: 'hello {{who}}', placeholders: [{ key: 'who', label: 'Who' }] },
      [{ channelId: hosted.id, contentType: 'text' }],
    ));
    taskId = (await herald.createTask('bad input', [{ channelId: hosted.id, contentType: 'text' }]))
      .task.id;
  });
  afterAll(() => herald.close(true));

  const call = (req: RawRequest) => rawRequest(port, req);
  const json = (path: string, body: string, headers: Record<string, string> = {}) =>
    call({
      method: 'POST',
      path,
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    });
  const expect400 = (res: RawResponse, msg: RegExp) => {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, msg: expect.stringMatching(msg), data: null });
  };

  it('a control character in any string of a send is refused naming the field; nothing is stored', async () => {
    const sends = await Send.count();
    const cases: [string, unknown, RegExp][] = [
      [
        '/api/v2/message/send',
        { token: templateToken, title: 'a\u0000b' },
        /^title: contains a control character \(U\+0000 at position 2\)/,
      ],
      [
        '/api/v2/message/send',
        { token: templateToken, title: 'ok', placeholders: { who: 'x\u0000' } },
        /^placeholders\.who: contains a control character/,
      ],
      [
        '/api/v2/message/send',
        { token: templateToken, title: 'ok', placeholders: { 'w\u0000': 'x' } },
        /^placeholders: a key contains a control character/,
      ],
      [
        '/api/v2/message/send',
        { token: templateToken, title: 'ok', recipients: ['a\u001b@b.example'] },
        /^recipients\.0: contains a control character \(U\+001B/,
      ],
      [
        '/api/v1/message/send',
        { task_id: taskId, title: 'ok', text: 'x\u0000y' },
        /^text: contains a control character/,
      ],
      [
        '/api/v1/message/send',
        { task_id: taskId, title: 'ok', markdown: 'x', url: 'http://x\u0007' },
        /^url: contains a control character/,
      ],
      [
        '/api/v1/message/send',
        { task_id: `${taskId}\u0000`, title: 'ok', text: 'x' },
        /^task_id: contains a control character/,
      ],
    ];
    for (const [path, body, msg] of cases) expect400(await json(path, JSON.stringify(body)), msg);
    expect(await Send.count()).toBe(sends);
  });

  it('tab, line feed and carriage return stay allowed', async () => {
    const res = await json(
      '/api/v2/message/send',
      JSON.stringify({
        token: templateToken,
        title: 'tabs\tand\r\nlines',
        placeholders: { who: 'a\tb\nc' },
      }),
    );
    expect(res.status).toBe(200);
    const stored = await herald.waitFor(() =>
      HostedMessage.findOne({ where: { title: 'tabs\tand\r\nlines' } }),
    );
    expect(stored.content).toBe('hello a\tb\nc');
  });

  it('a control character in a console body is refused naming the field; nothing is stored', async () => {
    const channels = await Channel.count();
    const res = await json(
      '/api/console/channels',
      JSON.stringify({ name: 'evil\u0000name', type: 'hosted', config: {} }),
      { Cookie: herald.console.cookie },
    );
    expect400(res, /^name: contains a control character \(U\+0000 at position 5\)/);
    const nested = await json(
      '/api/console/templates/preview',
      JSON.stringify({ text: '{{x}}', placeholders: { x: 'a\u0001' } }),
      { Cookie: herald.console.cookie },
    );
    expect400(nested, /^placeholders\.x: contains a control character/);
    expect(await Channel.count()).toBe(channels);
  });

  it('a malformed cookie reads as signed out (401), never a 500', async () => {
    for (const cookie of [
      'herald_session=%E0%A4%A',
      'herald_session=%',
      'other=%zz; herald_session=%E0%A4%A',
    ]) {
      const status = await call({ path: '/api/console/status', headers: { Cookie: cookie } });
      expect(status.status, cookie).toBe(200);
      expect(status.body.data.user).toBeNull();
      const guarded = await call({ path: '/api/console/channels', headers: { Cookie: cookie } });
      expect(guarded.status, cookie).toBe(401);
      expect(guarded.body.msg).toBe('not signed in');
    }
    // A broken unrelated cookie beside a good session does not sign the user out.
    const beside = await call({
      path: '/api/console/channels',
      headers: { Cookie: `tracker=%E0%A4%A; ${herald.console.cookie}` },
    });
    expect(beside.status).toBe(200);
  });

  it('a bad %-escape in the path is a 400 that says so', async () => {
    for (const path of [
      '/api/console/%E0%A4%A',
      '/api/console/channels/%E0%A4%A',
      '/%E0%A4%A',
      '/api/v2/message/send%',
    ]) {
      const res = await call({ path, headers: { Cookie: herald.console.cookie } });
      expect400(res, /malformed %-escape/);
    }
  });

  it('a body that does not decompress is a 400; a good gzip body still works', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      for (const path of ['/api/v2/message/send', '/api/console/login']) {
        const res = await call({
          method: 'POST',
          path,
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
          body: Buffer.from('this is not compressed'),
        });
        expect400(res, new RegExp(`request body is not valid ${encoding} data`));
      }
    }
    const good = await call({
      method: 'POST',
      path: '/api/v2/message/send',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ token: templateToken, title: 'gzipped' })),
    });
    expect(good.status).toBe(200);
  });

  it('deeply nested JSON is a 400 in the console (a preview included) and the send APIs', async () => {
    const cookie = { Cookie: herald.console.cookie };
    for (const levels of [40, 10_000, 200_000]) {
      const preview = await json(
        '/api/console/templates/preview',
        `{"text":"{{x}}","definitions":[{"key":"x","label":"X"}],"placeholders":{"x":${nestedArrays(levels)}}}`,
        cookie,
      );
      expect400(preview, /nested more than 32 levels deep/);
      const channel = await json(
        '/api/console/channels',
        `{"name":"deep","type":"webhook","config":${nestedObjects(levels)}}`,
        cookie,
      );
      expect400(channel, /nested more than 32 levels deep/);
      for (const body of [nestedArrays(levels), nestedObjects(levels)]) {
        const v2 = await json(
          '/api/v2/message/send',
          `{"token":"${templateToken}","title":"deep","placeholders":{"who":${body}}}`,
        );
        expect(v2.status, `v2 ${levels}`).toBe(400);
        const v1 = await json(
          '/api/v1/message/send',
          `{"task_id":${taskId},"title":"deep","text":${body}}`,
        );
        expect(v1.status, `v1 ${levels}`).toBe(400);
      }
    }
    expect(await HostedMessage.count({ where: { title: 'deep' } })).toBe(0);
  });
});
