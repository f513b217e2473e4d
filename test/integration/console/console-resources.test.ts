import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { safeHtmlOf } from '../../../server/features/hosted/message-service';
import { Channel } from '../../../server/db/models';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { onPostgres } from '../../helpers/test-database';

describe('console API resources', () => {
  let herald: TestHerald;
  let hostedId: number;

  beforeAll(async () => {
    herald = await startTestHerald();
    hostedId = (await herald.createChannel('hosted', {}, 'inbox')).id;
  });
  afterAll(() => herald.close(true));

  it('channels: secrets are sealed at rest, masked in answers, kept on "******" and cleared on ""', async () => {
    const created = await herald.console.ok('POST', '/channels', {
      name: 'robot',
      type: 'dingtalk',
      config: {
        webhookUrl: 'https://oapi.dingtalk.com/robot/send?access_token=abc',
        secret: 'SECsupersecret',
      },
    });
    expect(created.config.secret).toBe('******');
    const listed = await herald.console.ok('GET', '/channels');
    expect(JSON.stringify(listed)).not.toContain('SECsupersecret');
    const row = await Channel.findByPk(created.id);
    expect(JSON.stringify(row!.config)).not.toContain('SECsupersecret');
    if (onPostgres()) {
      // The stored text of every channel row, as the database holds it.
      const [stored] = await herald.server.ctx.sequelize.query('SELECT config::text FROM channels');
      expect(JSON.stringify(stored)).not.toContain('SECsupersecret');
    } else {
      // Every file of the database: a fresh write sits in the WAL until a checkpoint.
      const dbFiles = readdirSync(herald.dataDir).filter((f) => f.startsWith('herald.db'));
      expect(dbFiles).toContain('herald.db-wal');
      for (const f of dbFiles) {
        const bytes = readFileSync(join(herald.dataDir, f));
        expect(bytes.includes(Buffer.from('SECsupersecret')), f).toBe(false);
      }
    }
    const runtime = await herald.server.ctx.dispatcher['deps'].loadChannel(created.id);
    expect((runtime!.config as { secret: string }).secret).toBe('SECsupersecret');

    const kept = await herald.console.ok('PUT', `/channels/${created.id}`, {
      name: 'robot 2',
      config: {
        webhookUrl: 'https://oapi.dingtalk.com/robot/send?access_token=abc',
        secret: '******',
      },
    });
    expect(kept.name).toBe('robot 2');
    const runtime2 = await herald.server.ctx.dispatcher['deps'].loadChannel(created.id);
    expect((runtime2!.config as { secret: string }).secret).toBe('SECsupersecret');
    const cleared = await herald.console.ok('PUT', `/channels/${created.id}`, {
      config: { webhookUrl: 'https://oapi.dingtalk.com/robot/send?access_token=abc', secret: '' },
    });
    expect(cleared.config.secret).toBe('');
    const typeChange = await herald.console.put(`/channels/${created.id}`, { type: 'hosted' });
    expect(typeChange.status).toBe(400);
  });

  it('channels: bad type or config answers 400 naming the field', async () => {
    const badType = await herald.console.post('/channels', {
      name: 'x',
      type: 'carrier-pigeon',
      config: {},
    });
    expect(badType.status).toBe(400);
    expect(badType.body.msg).toMatch(/^type: unknown channel type/);
    const badUrl = await herald.console.post('/channels', {
      name: 'x',
      type: 'webhook',
      config: { url: 'ftp://x' },
    });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.msg).toMatch(/^config: url/);
    const noName = await herald.console.post('/channels', { type: 'hosted', config: {} });
    expect(noName.body.msg).toMatch(/^name: is required/);
  });

  it('channels: delete is refused while in use, naming the task and template', async () => {
    const ch = await herald.createChannel('hosted', {}, 'busy');
    const { task } = await herald.createTask('user-of-busy', [
      { channelId: ch.id, contentType: 'text' },
    ]);
    const { template } = await herald.createTemplate({ name: 'tpl-of-busy', text: 'x' }, [
      { channelId: ch.id, contentType: 'text' },
    ]);
    const read = await herald.console.ok('GET', `/channels/${ch.id}`);
    expect(read.usedBy).toEqual([
      { kind: 'task', id: task.id, name: 'user-of-busy' },
      { kind: 'template', id: template.id, name: 'tpl-of-busy' },
    ]);
    const refused = await herald.console.del(`/channels/${ch.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.msg).toContain('task "user-of-busy"');
    expect(refused.body.msg).toContain('template "tpl-of-busy"');
    await herald.console.ok('DELETE', `/tasks/${task.id}`);
    await herald.console.ok('DELETE', `/templates/${template.id}`);
    await herald.console.ok('DELETE', `/channels/${ch.id}`);
    expect((await herald.console.get(`/channels/${ch.id}`)).status).toBe(404);
  });

  it('channels: test sends a real message and returns the platform answer', async () => {
    const res = await herald.console.ok('POST', `/channels/${hostedId}/test`, { title: 'ping' });
    expect(res.ok).toBe(true);
    expect(res.reply).toMatch(/stored as hosted message/);
    const bad = await herald.createChannel('webhook', { url: 'http://127.0.0.1:9/x' });
    const failed = await herald.console.ok('POST', `/channels/${bad.id}/test`, {});
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/network error/);
  });

  it('tasks: list filters by name and pages; names are unique; deletion removes instances', async () => {
    for (const n of ['alpha-1', 'alpha-2', 'beta-1'])
      await herald.createTask(n, [{ channelId: hostedId, contentType: 'text' }]);
    const alpha = await herald.console.ok('GET', '/tasks?name=alpha&pageSize=1');
    expect(alpha.total).toBe(2);
    expect(alpha.items).toHaveLength(1);
    expect(alpha.pageSize).toBe(1);
    expect(alpha.items[0].instanceCount).toBe(1);
    expect(alpha.items[0].createdAt).toBeTruthy();
    const dup = await herald.console.post('/tasks', { name: 'alpha-1' });
    expect(dup.status).toBe(409);
    const wildcard = await herald.console.ok('GET', '/tasks?name=%25');
    expect(wildcard.total).toBe(0);
    const renamed = await herald.console.ok('PUT', `/tasks/${alpha.items[0].id}`, {
      name: 'gamma',
    });
    expect(renamed.name).toBe('gamma');
    await herald.console.ok('DELETE', `/tasks/${alpha.items[0].id}`);
    expect((await herald.console.get(`/tasks/${alpha.items[0].id}/instances`)).status).toBe(404);
  });

  it('instances: ContentType, recipient and dynamic-recipient rules are enforced with clear msgs', async () => {
    const email = await herald.createChannel('email', {
      host: '127.0.0.1',
      port: 2525,
      secure: 'none',
      from: 'h@example.com',
    });
    const dyn = await herald.createChannel('email', {
      host: '127.0.0.1',
      port: 2525,
      secure: 'none',
      from: 'h@example.com',
    });
    const { template } = await herald.createTemplate({ text: 'x' }, []);
    const path = `/templates/${template.id}/instances`;
    const md = await herald.console.post(path, {
      channelId: email.id,
      contentType: 'markdown',
      recipient: 'a@example.com',
    });
    expect(md.status).toBe(400);
    expect(md.body.msg).toMatch(/^contentType: .* accepts text or html/);
    const noRecipient = await herald.console.post(path, {
      channelId: email.id,
      contentType: 'text',
    });
    expect(noRecipient.body.msg).toMatch(/^recipient: .*needs a recipient/);
    const hostedDyn = await herald.console.post(path, {
      channelId: hostedId,
      contentType: 'text',
      dynamicRecipients: true,
    });
    expect(hostedDyn.body.msg).toBe(
      'dynamicRecipients: a Hosted message channel has no dynamic recipients (only Email (SMTP), WeChat official account, WeCom app, Aliyun SMS, PushPlus, WxPusher, DingTalk work notice)',
    );
    const mention = await herald.console.post(path, {
      channelId: hostedId,
      contentType: 'text',
      atAll: true,
    });
    expect(mention.body.msg).toMatch(/^atMobiles: only robot channels/);
    const missingChannel = await herald.console.post(path, {
      channelId: 99999,
      contentType: 'text',
    });
    expect(missingChannel.body.msg).toMatch(/^channelId: channel 99999 does not exist/);

    const fixed = await herald.console.ok('POST', path, {
      channelId: email.id,
      contentType: 'html',
      recipient: 'a@example.com, b@example.com',
    });
    const beside = await herald.console.post(path, {
      channelId: dyn.id,
      contentType: 'text',
      dynamicRecipients: true,
    });
    expect(beside.status).toBe(400);
    expect(beside.body.msg).toMatch(/cannot sit beside fixed-recipient instance/);
    await herald.console.ok('DELETE', `/instances/${fixed.id}`);
    const first = await herald.console.ok('POST', path, {
      channelId: dyn.id,
      contentType: 'text',
      dynamicRecipients: true,
      recipient: 'ignored@example.com',
    });
    expect(first.recipient).toBe('');
    const second = await herald.console.post(path, {
      channelId: email.id,
      contentType: 'text',
      dynamicRecipients: true,
    });
    expect(second.body.msg).toMatch(/only one dynamic-recipient instance/);
    const fixedAfter = await herald.console.post(path, {
      channelId: email.id,
      contentType: 'text',
      recipient: 'c@example.com',
    });
    expect(fixedAfter.body.msg).toMatch(/has a dynamic-recipient instance/);
    // hosted instances have no recipient and may sit beside a dynamic one
    await herald.console.ok('POST', path, { channelId: hostedId, contentType: 'markdown' });
    const toggled = await herald.console.ok('PATCH', `/instances/${first.id}`, { enabled: false });
    expect(toggled.enabled).toBe(false);
    const badPatch = await herald.console.patch(`/instances/${first.id}`, {
      contentType: 'markdown',
    });
    expect(badPatch.status).toBe(400);
  });

  it('templates: preview renders placeholders, defaults and HTML escaping; tokens rotate', async () => {
    const { template, token } = await herald.createTemplate(
      {
        text: 'Hi {{name}} from {{place}}',
        html: '<b>{{name}}</b>',
        markdown: '**{{name}}**',
        placeholders: [
          { key: 'name', label: 'Name' },
          { key: 'place', label: 'Place', default: 'Herald' },
        ],
        atMobiles: '138 00000000 ,  13900000000，',
      },
      [],
    );
    expect(template.atMobiles).toBe('138 00000000,13900000000');
    const preview = await herald.console.ok('POST', `/templates/${template.id}/preview`, {
      placeholders: { name: '<Ann>' },
    });
    expect(preview).toEqual({
      text: 'Hi <Ann> from Herald',
      html: '<b>&lt;Ann&gt;</b>',
      markdown: '**<Ann>**',
    });
    const unsaved = await herald.console.ok('POST', '/templates/preview', {
      definitions: [{ key: 'x', label: 'X' }],
      text: '{{x}}{{y}}',
      placeholders: { x: 1, y: 2 },
    });
    expect(unsaved.text).toBe('1{{y}}');
    const dupKeys = await herald.console.post('/templates', {
      name: 'dup',
      placeholders: [
        { key: 'a', label: 'A' },
        { key: 'a', label: 'B' },
      ],
    });
    expect(dupKeys.status).toBe(400);
    expect(dupKeys.body.msg).toMatch(/defined twice/);
    const again = await herald.console.ok('GET', `/templates/${template.id}/token`);
    expect(again.token).toBe(token);
    const rotated = await herald.console.ok('POST', `/templates/${template.id}/token/rotate`);
    expect(rotated.token).not.toBe(token);
  });

  it('messages: list, search, unread filter, read state, read-all, delete and sanitised HTML', async () => {
    const { token } = await herald.createTemplate(
      {
        html: '<p onclick="x()">Hello <script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)">j</a><a href="https://e.com">ok</a></p>',
      },
      [{ channelId: hostedId, contentType: 'html' }],
    );
    await herald.sendV2({ token, title: 'needle html' });
    const { token: t2 } = await herald.createTemplate({ text: 'plain haystack 50% off' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    await herald.sendV2({ token: t2, title: 'second' });
    const list = await herald.waitFor(async () => {
      const r = await herald.console.ok('GET', '/messages?q=needle');
      return r.total === 1 ? r : null;
    });
    const id = list.items[0].id;
    expect(list.items[0].read).toBe(false);
    await herald.waitFor(
      async () => (await herald.console.ok('GET', '/messages?q=50%25')).total === 1,
    );
    const detail = await herald.console.ok('GET', `/messages/${id}`);
    expect(detail.safeHtml).not.toMatch(/script|onerror|onclick|javascript:/i);
    expect(detail.safeHtml).toContain('href="https://e.com"');
    expect(safeHtmlOf('<p style="color:#c00;position:fixed;background:url(x)">a</p>', 'html')).toBe(
      '<p style="color:#c00">a</p>',
    );
    expect(detail.safeHtml).toContain('rel="noopener noreferrer"');
    expect((await herald.console.ok('PATCH', `/messages/${id}`, { read: true })).read).toBe(true);
    const unread = await herald.console.ok('GET', '/messages?unread=true');
    expect(unread.items.some((m: { id: number }) => m.id === id)).toBe(false);
    expect((await herald.console.ok('PATCH', `/messages/${id}`, { read: false })).read).toBe(false);
    const all = await herald.console.ok('POST', '/messages/read-all');
    expect(all.updated).toBeGreaterThanOrEqual(2);
    expect((await herald.console.ok('GET', '/messages/unread-count')).count).toBe(0);
    await herald.console.ok('DELETE', `/messages/${id}`);
    expect((await herald.console.get(`/messages/${id}`)).status).toBe(404);
  });

  it('logs: filters by q, api, template, status and date; detail lists deliveries and attempts', async () => {
    const { template, token } = await herald.createTemplate({ text: 'log me' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const task = await herald.createTask('log-task', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    await herald.sendV2({ token, title: 'findable v2' });
    await herald.sendV1({ token: task.token, title: 'findable v1', text: 'body words' });
    const v2 = await herald.waitFor(async () => {
      const r = await herald.console.ok(
        'GET',
        `/logs?q=findable&api=v2&templateId=${template.id}&status=sent`,
      );
      return r.total === 1 ? r : null;
    });
    expect(v2.items[0]).toMatchObject({
      api: 'v2',
      sourceName: template.name,
      status: 'sent',
      sentCount: 1,
      failedCount: 0,
    });
    const byBody = await herald.console.ok('GET', '/logs?q=body%20words');
    expect(byBody.items.map((s: { title: string }) => s.title)).toEqual(['findable v1']);
    const today = new Date().toISOString().slice(0, 10);
    expect(
      (await herald.console.ok('GET', `/logs?q=findable&from=${today}&to=${today}`)).total,
    ).toBe(2);
    expect((await herald.console.ok('GET', '/logs?q=findable&to=2000-01-01')).total).toBe(0);
    expect((await herald.console.get('/logs?status=bogus')).status).toBe(400);
    const detail = await herald.console.ok('GET', `/logs/${v2.items[0].id}`);
    expect(detail.deliveries).toHaveLength(1);
    expect(detail.deliveries[0]).toMatchObject({
      channelName: 'inbox',
      status: 'sent',
      attempts: 1,
    });
    expect(detail.deliveries[0].attemptLog[0]).toMatchObject({ attempt: 1, outcome: 'sent' });
    expect(detail.request.token).toMatch(/…$/);
  });

  it('settings and stats: retry policy updates; stats count sends per day and per channel', async () => {
    const s = await herald.console.ok('PUT', '/settings', { retry: { maxAttempts: 3 } });
    expect(s.retry.maxAttempts).toBe(3);
    expect(s.retry.baseDelayMs).toBe(50);
    expect(s.about.dataDir).toBe(herald.dataDir);
    expect(s.about.listen).toBe(herald.url);
    const one = await herald.console.ok('PUT', '/settings', { v1WaitMs: 9000 });
    expect(one.retry.maxAttempts).toBe(3);
    // A patch keeps what it leaves out: task_id stays off, as on every new install.
    expect(one.allowTaskId).toBe(false);
    expect(one.v1WaitMs).toBe(9000);
    const bad = await herald.console.put('/settings', { retry: { maxAttempts: 0 } });
    expect(bad.status).toBe(400);
    const unknown = await herald.console.put('/settings', { colour: 'red' });
    expect(unknown.status).toBe(400);
    // A delivered send of its own to the inbox, whatever ran before this test.
    const { token } = await herald.createTemplate({ text: 'counted' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    expect((await herald.sendV2({ token, title: 'counted in stats' })).body.code).toBe(200);
    await herald.waitFor(
      async () => (await herald.console.ok('GET', '/stats?days=7')).days[6].sent > 0,
    );
    const stats = await herald.console.ok('GET', '/stats?days=7');
    expect(stats.days).toHaveLength(7);
    const today = stats.days[6];
    expect(today.date).toBe(new Date().toISOString().slice(0, 10));
    expect(today.sent).toBeGreaterThan(0);
    expect(stats.totals.today).toBeGreaterThanOrEqual(today.sent);
    expect(stats.byChannel.find((c: { name: string }) => c.name === 'inbox').sent).toBeGreaterThan(
      0,
    );
    expect(stats.bySource.length).toBeGreaterThan(0);
    expect(stats.totals.successRate).toBeGreaterThan(0);
    expect((await herald.console.get('/stats?days=0')).status).toBe(400);
  });

  it('GET /events streams new hosted messages and delivery changes', async () => {
    const { token } = await herald.createTemplate({ text: 'live' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const ac = new AbortController();
    const res = await fetch(`${herald.url}/api/console/events`, {
      headers: { Cookie: herald.console.cookie },
      signal: ac.signal,
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    await herald.sendV2({ token, title: 'streamed' });
    let text = '';
    while (!text.includes('"title":"streamed"') || !text.includes('event: delivery')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    ac.abort();
    expect(text).toMatch(/event: message\ndata: \{"id":\d+,"title":"streamed"/);
    expect(text).toMatch(/event: delivery\ndata: \{"id":\d+,"sendId":\d+,"status":"sent"\}/);
  });

  it('GET /api/openapi.json describes both send APIs and the console', async () => {
    const res = await fetch(`${herald.url}/api/openapi.json`);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/message/send', '/api/v2/message/send', '/api/console/logs']),
    );
  });

  it('unknown API paths answer the envelope with 404', async () => {
    const res = await fetch(`${herald.url}/api/v3/message/send`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: number }).code).toBe(404);
  });
});
