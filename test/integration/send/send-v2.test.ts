import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Delivery, HostedMessage } from '../../../server/db/models';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

describe('POST /api/v2/message/send', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let hostedId: number;
  let webhookId: number;

  beforeAll(async () => {
    herald = await startTestHerald();
    peer = await startHttpPeer();
    hostedId = (await herald.createChannel('hosted')).id;
    webhookId = (await herald.createChannel('webhook', { url: `${peer.url}/hook` })).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const hostedMessages = async (title: string) => {
    await herald.waitFor(async () => (await HostedMessage.count({ where: { title } })) > 0);
    return HostedMessage.findAll({ where: { title }, order: [['id', 'ASC']] });
  };

  it('sendV2() queues to every enabled instance and answers {token, count}', async () => {
    const { token } = await herald.createTemplate(
      {
        text: 'plain {{who}}',
        markdown: '**md** {{who}}',
        placeholders: [{ key: 'who', label: 'Who' }],
      },
      [
        { channelId: hostedId, contentType: 'markdown', publicLink: true },
        { channelId: hostedId, contentType: 'text' },
        { channelId: hostedId, contentType: 'html', enabled: false },
      ],
    );
    const res = await herald.sendV2({ token, title: 'v2 basic', placeholders: { who: 'Ann' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 200,
      msg: 'success',
      // The first hosted instance's share link (docs/send-api.md).
      data: { token, count: 2, hostMessageUrl: expect.stringMatching(/\/preview\/[\w-]{22}$/) },
    });
    const stored = await herald.waitFor(async () => {
      const rows = await hostedMessages('v2 basic');
      return rows.length === 2 ? rows : null;
    });
    expect(stored.map((m) => [m.format, m.content]).sort()).toEqual([
      ['markdown', '**md** Ann'],
      ['text', 'plain Ann'],
    ]);
  });

  it('sendV2() fills placeholders one level, uses defaults and leaves unknown markers', async () => {
    const { token } = await herald.createTemplate(
      {
        text: '{{a}}|{{b}}|{{c}}|{{undefined_key}}|{{ a }}',
        placeholders: [
          { key: 'a', label: 'A' },
          { key: 'b', label: 'B', default: 'B-default' },
          { key: 'c', label: 'C' },
        ],
      },
      [{ channelId: hostedId, contentType: 'text' }],
    );
    await herald.sendV2({
      token,
      title: 'v2 placeholders',
      placeholders: { a: '{{b}}', extra: 'x' },
    });
    const [m] = await hostedMessages('v2 placeholders');
    // a's value holds a marker: inserted literally, never expanded again.
    expect(m.content).toBe('{{b}}|B-default|{{c}}|{{undefined_key}}|{{b}}');
  });

  it('sendV2() HTML-escapes values in HTML content only', async () => {
    const { token } = await herald.createTemplate(
      {
        html: '<p>{{v}}</p>',
        text: 'text {{v}}',
        placeholders: [{ key: 'v', label: 'V' }],
      },
      [
        { channelId: hostedId, contentType: 'html' },
        { channelId: hostedId, contentType: 'text' },
      ],
    );
    await herald.sendV2({ token, title: 'v2 escape', placeholders: { v: '<b>&"x"</b>' } });
    const rows = await herald.waitFor(async () => {
      const r = await hostedMessages('v2 escape');
      return r.length === 2 ? r : null;
    });
    expect(rows.find((r) => r.format === 'html')?.content).toBe(
      '<p>&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;</p>',
    );
    expect(rows.find((r) => r.format === 'text')?.content).toBe('text <b>&"x"</b>');
  });

  it('sendV2() falls back and converts when the template lacks the instance format', async () => {
    const { token } = await herald.createTemplate({ markdown: '# Title\n\n**bold** text' }, [
      { channelId: hostedId, contentType: 'html' },
      { channelId: hostedId, contentType: 'text' },
    ]);
    await herald.sendV2({ token, title: 'v2 fallback' });
    const rows = await herald.waitFor(async () => {
      const r = await hostedMessages('v2 fallback');
      return r.length === 2 ? r : null;
    });
    const html = rows.find((r) => r.format === 'html')!.content;
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    const text = rows.find((r) => r.format === 'text')!.content;
    expect(text).not.toContain('**');
    expect(text).not.toContain('<');
    expect(text).toContain('bold text');
  });

  it('sendV2() answers the contract msg for each refusal', async () => {
    const good = await herald.createTemplate({ text: 'x' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const empty = await herald.createTemplate({ text: 'x' }, []);
    const allOff = await herald.createTemplate({ text: 'x' }, [
      { channelId: hostedId, contentType: 'text', enabled: false },
    ]);
    const disabled = await herald.createTemplate({ text: 'x', enabled: false }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const deleted = await herald.createTemplate({ text: 'x' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    await herald.console.ok('DELETE', `/templates/${deleted.template.id}`);
    const taskToken = (
      await herald.createTask('v2-refusal-task', [{ channelId: hostedId, contentType: 'text' }])
    ).token;

    const cases: Array<[unknown, string | RegExp]> = [
      [{ token: 'not-a-token!', title: 't' }, /^token解析失败/],
      [{ token: good.token.slice(0, -2) + 'AA', title: 't' }, /^token解析失败/],
      [{ token: taskToken, title: 't' }, /^token解析失败/],
      [{ token: deleted.token, title: 't' }, '模板不存在'],
      [{ token: disabled.token, title: 't' }, '模板已禁用'],
      [{ token: empty.token, title: 't' }, '模板没有配置发送实例'],
      [{ token: allOff.token, title: 't' }, '模板没有启用的发送实例'],
    ];
    for (const [body, msg] of cases) {
      const res = await herald.sendV2(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe(400);
      expect(res.body.data).toBeNull();
      if (typeof msg === 'string') expect(res.body.msg).toBe(msg);
      else expect(res.body.msg).toMatch(msg);
    }
  });

  it('sendV2() is accepted again once a disabled template is enabled', async () => {
    const { template, token } = await herald.createTemplate({ text: 'x', enabled: false }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    expect((await herald.sendV2({ token, title: 'off' })).body.msg).toBe('模板已禁用');
    await herald.console.ok('PATCH', `/templates/${template.id}`, { enabled: true });
    expect((await herald.sendV2({ token, title: 'on' })).body.code).toBe(200);
  });

  it('sendV2() refuses bad parameters with 400 naming the field', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const cases: Array<[unknown, RegExp]> = [
      [{ title: 't' }, /^token: is required/],
      [{ token, title: '' }, /^title: must not be empty/],
      [{ token, title: '   ' }, /^title: must not be empty/],
      [{ token }, /^title: is required/],
      [{ token, title: 5 }, /^title: must be a string/],
      [{ token, title: 'x'.repeat(1001) }, /^title: must be at most 1000/],
      [{ token, title: 't', placeholders: 'no' }, /^placeholders:/],
      [{ token, title: 't', recipients: 'a@b.c' }, /^recipients:/],
      [
        { token, title: 't', recipients: Array.from({ length: 101 }, (_, i) => `u${i}@x.io`) },
        /^recipients: at most 100/,
      ],
      [[1, 2], /request body must be a JSON object/],
    ];
    for (const [body, msg] of cases) {
      const res = await herald.sendV2(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.msg).toMatch(msg);
    }
  });

  it('sendV2() refuses malformed JSON and bodies over 1 MiB without losing earlier sends', async () => {
    const { token } = await herald.createTemplate({ text: 'keep me' }, [
      { channelId: webhookId, contentType: 'text' },
    ]);
    const before = peer.received.length;
    await herald.sendV2({ token, title: 'before bad input' });
    const malformed = await herald.post('/api/v2/message/send', '{"token": "x", "title": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.msg).toMatch(/not valid JSON/);
    const huge = await herald.post('/api/v2/message/send', {
      token,
      title: 't',
      placeholders: { big: 'x'.repeat(1_100_000) },
    });
    expect(huge.status).toBe(400);
    expect(huge.body.msg).toMatch(/larger than 1 MiB/);
    await peer.waitForRequests(before + 1);
    expect(
      peer.received.some((r) => (r.json as { title?: string })?.title === 'before bad input'),
    ).toBe(true);
  });

  it('sendV2() reads the body as JSON even without a Content-Type header', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const res = await fetch(`${herald.url}/api/v2/message/send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ token, title: 'no header' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { code: number }).code).toBe(200);
  });

  it('sendV2() requires recipients for a dynamic-recipient template and makes one delivery per recipient', async () => {
    // Delivery by SMTP is the email suite's business: here the deliveries are only counted.
    const email = await herald.createChannel('email', {
      host: '127.0.0.1',
      port: 2525,
      secure: 'none',
      from: 'herald@example.com',
    });
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: email.id, contentType: 'text', dynamicRecipients: true },
      { channelId: hostedId, contentType: 'text' },
    ]);
    const missing = await herald.sendV2({ token, title: 'dyn' });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toMatch(/^recipients: is required/);
    const bad = await herald.sendV2({ token, title: 'dyn', recipients: ['not-an-address'] });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/^recipients:/);
    herald.server.deliveries.pause();
    try {
      const ok = await herald.sendV2({
        token,
        title: 'dyn ok',
        recipients: ['a@example.com', 'b@example.com', 'a@example.com'],
      });
      expect(ok.body.data.count).toBe(2);
      const rows = await Delivery.findAll({ where: { channelId: email.id } });
      expect(rows.map((r) => r.recipient).sort()).toEqual(['a@example.com', 'b@example.com']);
    } finally {
      await Delivery.update({ status: 'failed' }, { where: { channelId: email.id } });
      herald.server.deliveries.resume();
    }
  });

  it('sendV2() sees template, instance and channel edits made between two sends', async () => {
    const { template, token } = await herald.createTemplate({ text: 'first body' }, [
      { channelId: hostedId, contentType: 'text' },
      { channelId: hostedId, contentType: 'markdown' },
    ]);
    expect((await herald.sendV2({ token, title: 'edit 1' })).body.data.count).toBe(2);
    await hostedMessages('edit 1');
    await herald.console.ok('PUT', `/templates/${template.id}`, {
      text: 'second body',
      markdown: null,
    });
    const detail = await herald.console.ok('GET', `/templates/${template.id}`);
    await herald.console.ok('PATCH', `/instances/${detail.instances[1].id}`, { enabled: false });
    expect((await herald.sendV2({ token, title: 'edit 2' })).body.data.count).toBe(1);
    const [m] = await hostedMessages('edit 2');
    expect(m.content).toBe('second body');
    await herald.console.ok('POST', `/templates/${template.id}/token/rotate`);
    expect((await herald.sendV2({ token, title: 'edit 3' })).body.msg).toMatch(/^token解析失败/);
  });

  it('sendV2() answers 429 past the per-template rate limit set in settings', async () => {
    const { token } = await herald.createTemplate({ text: 'x' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 2 });
    try {
      const codes = [];
      for (let i = 0; i < 3; i++)
        codes.push((await herald.sendV2({ token, title: `limited ${i}` })).status);
      expect(codes).toEqual([200, 200, 429]);
      const res = await herald.sendV2({ token, title: 'limited again' });
      expect(res.body).toEqual({
        code: 429,
        msg: 'rate limit: at most 2 sends a minute per template',
        data: null,
      });
    } finally {
      await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 0 });
    }
  });
});
