import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Delivery, HostedMessage } from '../../../server/db/models';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

describe('POST /api/v1/message/send', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let hostedId: number;
  let webhookId: number;

  beforeAll(async () => {
    // task_id is off on new installs; these tests cover it turned on.
    herald = await startTestHerald({ settings: { allowTaskId: true, retry: { maxAttempts: 2 } } });
    peer = await startHttpPeer();
    hostedId = (await herald.createChannel('hosted')).id;
    webhookId = (await herald.createChannel('webhook', { url: `${peer.url}/v1` })).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const byTitle = (title: string, n: number) =>
    herald.waitFor(async () => {
      const rows = await HostedMessage.findAll({ where: { title }, order: [['id', 'ASC']] });
      return rows.length >= n ? rows : null;
    });

  it('sendV1() answers status "sent" once every delivery went out', async () => {
    const { token } = await herald.createTask('v1-sent', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const res = await herald.sendV1({ token, title: 'v1 sent', text: 'hello' });
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(200);
    expect(res.body.msg).toBe('success');
    expect(res.body.data.status).toBe('sent');
    // V1 answered after the first attempt: the message is already stored.
    expect(await HostedMessage.count({ where: { title: 'v1 sent' } })).toBe(1);
  });

  it('sendV1() picks content by the contract table, first present wins', async () => {
    const { token } = await herald.createTask('v1-choice', [
      { channelId: hostedId, contentType: 'html' },
      { channelId: hostedId, contentType: 'markdown' },
      { channelId: hostedId, contentType: 'text' },
    ]);
    const rows: Array<[Record<string, string>, Record<string, string | RegExp>]> = [
      // all three given: each instance takes its own format
      [
        { text: 'T', html: '<i>H</i>', markdown: '*M*' },
        { html: '<i>H</i>', markdown: '*M*', text: 'T' },
      ],
      // html instance: html, markdown, text; markdown instance: markdown, text, html; text: text, markdown, html
      [
        { text: 'T', markdown: '*M*' },
        { html: '<p><em>M</em></p>', markdown: '*M*', text: 'T' },
      ],
      [
        { html: '<b>H</b>', text: 'T' },
        { html: '<b>H</b>', markdown: 'T', text: 'T' },
      ],
      [
        { html: '<b>H</b>', markdown: '**M**' },
        { html: '<b>H</b>', markdown: '**M**', text: 'M' },
      ],
      // only text: every instance uses text (converted to HTML for the HTML instance)
      [
        { text: 'only <text>' },
        { html: 'only &lt;text&gt;', markdown: 'only <text>', text: 'only <text>' },
      ],
      [
        { html: '<p>only html</p>' },
        { html: '<p>only html</p>', markdown: 'only html', text: 'only html' },
      ],
    ];
    let i = 0;
    for (const [bodies, expected] of rows) {
      const title = `v1 choice ${i++}`;
      const res = await herald.sendV1({ token, title, ...bodies });
      expect(res.body.data.status).toBe('sent');
      const stored = await byTitle(title, 3);
      for (const [format, content] of Object.entries(expected)) {
        const m = stored.find((s) => s.format === format);
        expect(m?.content, `${title} ${format}`).toBe(content);
      }
    }
  });

  it('sendV1() identifies the task by token, or task_id, and the token wins when both are sent', async () => {
    const a = await herald.createTask('v1-ident-a', [{ channelId: hostedId, contentType: 'text' }]);
    const b = await herald.createTask('v1-ident-b', [
      { channelId: webhookId, contentType: 'text' },
    ]);
    await herald.sendV1({ task_id: String(a.task.id), title: 'by task_id', text: 'x' });
    await byTitle('by task_id', 1);
    const before = peer.received.length;
    await herald.sendV1({ token: b.token, task_id: a.task.id, title: 'token wins', text: 'x' });
    await peer.waitForRequests(before + 1);
    expect(await HostedMessage.count({ where: { title: 'token wins' } })).toBe(0);
  });

  it('sendV1() answers 401, 404 and 400 for the contract error cases', async () => {
    const { task, token } = await herald.createTask('v1-errors', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const empty = await herald.createTask('v1-no-instances', []);
    const off = await herald.createTask('v1-all-off', [
      { channelId: hostedId, contentType: 'text', enabled: false },
    ]);
    const tpl = await herald.createTemplate({ text: 'x' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const cases: Array<[unknown, number, RegExp]> = [
      [{ title: 't', text: 'x' }, 400, /^token: is required/],
      [{ token: 'garbage', title: 't', text: 'x' }, 401, /^token is invalid/],
      [{ token: tpl.token, title: 't', text: 'x' }, 401, /^token is invalid/],
      [{ token, title: 't' }, 400, /at least one/],
      [{ token, title: 't', text: '' }, 400, /at least one/],
      [{ token, text: 'x' }, 400, /^title: is required/],
      [{ token, title: '', text: 'x' }, 400, /^title: must not be empty/],
      [{ token, title: 't', text: 5 }, 400, /^text: must be a string/],
      [{ token, title: 't', text: 'x', at_mobiles: 'no' }, 400, /^at_mobiles:/],
      [{ token, title: 't', text: 'x', at_all: 'yes' }, 400, /^at_all:/],
      [{ token, title: 't', text: 'x', mode: 'later' }, 400, /^mode:/],
      [{ task_id: 999999, title: 't', text: 'x' }, 404, /does not exist/],
      [{ task_id: 'abc', title: 't', text: 'x' }, 400, /task_id/],
      [{ token: empty.token, title: 't', text: 'x' }, 400, /no instances/],
      [{ token: off.token, title: 't', text: 'x' }, 400, /no enabled instances/],
    ];
    for (const [body, code, msg] of cases) {
      const res = await herald.sendV1(body);
      expect(res.status, JSON.stringify(body)).toBe(code);
      expect(res.body.code).toBe(code);
      expect(res.body.msg).toMatch(msg);
      expect(res.body.data).toBeNull();
    }
    // a deleted task's token answers 404
    await herald.console.ok('DELETE', `/tasks/${task.id}`);
    const gone = await herald.sendV1({ token, title: 't', text: 'x' });
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe(404);
  });

  it('sendV1() answers 401 for task_id when settings turn it off', async () => {
    const { task } = await herald.createTask('v1-taskid-off', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    await herald.console.ok('PUT', '/settings', { allowTaskId: false });
    try {
      const res = await herald.sendV1({ task_id: task.id, title: 't', text: 'x' });
      expect(res.status).toBe(401);
      expect(res.body.msg).toMatch(/task_id is turned off/);
    } finally {
      await herald.console.ok('PUT', '/settings', { allowTaskId: true });
    }
  });

  it('sendV1() makes a rotated token fail and the new one work', async () => {
    const { task, token } = await herald.createTask('v1-rotate', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const { token: fresh } = await herald.console.ok('POST', `/tasks/${task.id}/token/rotate`);
    expect(fresh).not.toBe(token);
    const old = await herald.sendV1({ token, title: 't', text: 'x' });
    expect(old.status).toBe(401);
    expect(old.body.msg).toMatch(/rotated/);
    expect(
      (await herald.sendV1({ token: fresh, title: 'rotated ok', text: 'x' })).body.data.status,
    ).toBe('sent');
    expect((await herald.console.ok('GET', `/tasks/${task.id}/token`)).token).toBe(fresh);
  });

  it('sendV1() answers "partial" with per-instance results when one delivery fails', async () => {
    const broken = await herald.createChannel('webhook', { url: 'http://127.0.0.1:9/unreachable' });
    const { token } = await herald.createTask('v1-partial', [
      { channelId: hostedId, contentType: 'text' },
      { channelId: broken.id, contentType: 'text' },
    ]);
    const res = await herald.sendV1({ token, title: 'v1 partial', text: 'x' });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('partial');
    const results = res.body.data.results as Array<{
      channelId: number;
      status: string;
      error: string | null;
    }>;
    expect(results.find((r) => r.channelId === hostedId)?.status).toBe('sent');
    const failed = results.find((r) => r.channelId === broken.id)!;
    expect(failed.status).toBe('retrying');
    expect(failed.error).toMatch(/network error|ECONNREFUSED/);
  });

  it('sendV1() answers 500 naming the failures when every delivery fails', async () => {
    const peer404 = await startHttpPeer({ status: 404, body: 'no such hook' });
    try {
      const dead = await herald.createChannel('webhook', { url: `${peer404.url}/gone` });
      const { token } = await herald.createTask('v1-all-fail', [
        { channelId: dead.id, contentType: 'text' },
      ]);
      const res = await herald.sendV1({ token, title: 'v1 fail', text: 'x' });
      expect(res.status).toBe(500);
      expect(res.body.code).toBe(500);
      expect(res.body.data).toBeNull();
      expect(res.body.msg).toMatch(/all deliveries failed/);
      expect(res.body.msg).toMatch(/HTTP 404/);
    } finally {
      await peer404.close();
    }
  });

  it('sendV1() with mode "async" answers at once with status "queued"', async () => {
    const { token } = await herald.createTask('v1-async', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const res = await herald.sendV1({ token, title: 'v1 async', text: 'x', mode: 'async' });
    expect(res.body.data.status).toBe('queued');
    await byTitle('v1 async', 1);
  });

  it('sendV1() keeps url on the hosted message and accepts at_user_ids beside at_userids', async () => {
    const { token } = await herald.createTask('v1-nest', [
      { channelId: hostedId, contentType: 'markdown' },
    ]);
    const res = await herald.sendV1({
      token,
      title: 'v1 nest',
      markdown: 'm',
      url: 'https://example.com/x',
      at_user_ids: ['u1'],
      at_userids: ['u2'],
      at_mobiles: ['13800000000'],
      at_all: true,
    });
    expect(res.body.data.status).toBe('sent');
    const [m] = await byTitle('v1 nest', 1);
    expect(m.url).toBe('https://example.com/x');
    // mentions apply only to robot channels: the hosted delivery carries none
    const d = await Delivery.findOne({ where: { title: 'v1 nest' } });
    expect(d?.mentions).toEqual({ mobiles: [], userIds: [], all: false });
  });

  it('sendV1() requires recipients for a dynamic-recipient task and queues one delivery per recipient', async () => {
    const email = await herald.createChannel('email', {
      host: '127.0.0.1',
      port: 2525,
      secure: 'none',
      from: 'h@example.com',
    });
    const { token } = await herald.createTask('v1-dynamic', [
      { channelId: email.id, contentType: 'html', dynamicRecipients: true },
      { channelId: hostedId, contentType: 'text' },
    ]);
    const missing = await herald.sendV1({ token, title: 'dyn', text: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toMatch(/^recipients: is required/);
    const bad = await herald.sendV1({
      token,
      title: 'dyn',
      text: 'x',
      recipients: ['a@example.com', 'nope'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/^recipients: .*nope/);
    herald.server.deliveries.pause();
    try {
      const ok = await herald.sendV1({
        token,
        title: 'v1 dyn ok',
        text: 'x',
        recipients: ['a@example.com', 'b@example.com'],
        mode: 'async',
      });
      expect(ok.body.data.status).toBe('queued');
      const rows = await Delivery.findAll({ where: { title: 'v1 dyn ok' } });
      expect(
        rows
          .filter((r) => r.channelId === email.id)
          .map((r) => r.recipient)
          .sort(),
      ).toEqual(['a@example.com', 'b@example.com']);
      expect(rows.filter((r) => r.channelId === hostedId).map((r) => r.recipient)).toEqual([null]);
    } finally {
      await Delivery.update({ status: 'failed' }, { where: { channelId: email.id } });
      herald.server.deliveries.resume();
    }
  });
});
