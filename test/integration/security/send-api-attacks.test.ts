import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HostedMessage, IdempotencyKey, Send } from '../../../server/db/models';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

/**
 * Issue 11's attacks on the send APIs (table rows 2, 4, 6 and 8), performed over HTTP against
 * a real Herald: each asserts the refusal and that nothing was stored or delivered.
 */
describe('send API attacks', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let hostedId: number;
  // The rate limit's window never moves unless a test moves it.
  const clock = new ManualClock();

  beforeAll(async () => {
    herald = await startTestHerald({ clock });
    peer = await startHttpPeer();
    hostedId = (await herald.createChannel('hosted')).id;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  /** A webhook channel of its own, so each test counts only its own deliveries. */
  const webhook = async (path: string) =>
    (await herald.createChannel('webhook', { url: `${peer.url}/${path}` })).id;
  const deliveredTo = (path: string) => peer.received.filter((r) => r.url === `/${path}`);
  /** Lets a delivery that should not exist show up if the dispatcher were going to send it. */
  const settle = () => new Promise((r) => setTimeout(r, 300));

  const withSettings = async (patch: Record<string, unknown>, fn: () => Promise<void>) => {
    const before = await herald.console.ok('GET', '/settings');
    await herald.console.ok('PUT', '/settings', patch);
    try {
      await fn();
    } finally {
      const restore = Object.fromEntries(Object.keys(patch).map((k) => [k, before[k]]));
      await herald.console.ok('PUT', '/settings', restore);
    }
  };

  it('row 2: a page posting text/plain JSON with a guessed task_id is refused on a new install', async () => {
    const { task } = await herald.createTask('row2', [
      { channelId: await webhook('row2'), contentType: 'text' },
      { channelId: hostedId, contentType: 'text' },
    ]);
    expect((await herald.console.ok('GET', '/settings')).allowTaskId).toBe(false);
    // A "simple" cross-site request: no preflight, the body is JSON in text/plain.
    for (const taskId of [String(task.id), task.id]) {
      const res = await herald.post(
        '/api/v1/message/send',
        JSON.stringify({ task_id: taskId, title: 'row2 forged', text: 'pwned' }),
        { 'Content-Type': 'text/plain' },
      );
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 401, data: null });
      expect(res.body.msg).toMatch(/^task_id is turned off in settings; send the task token/);
    }
    await settle();
    expect(await Send.count({ where: { title: 'row2 forged' } })).toBe(0);
    expect(await HostedMessage.count({ where: { title: 'row2 forged' } })).toBe(0);
    expect(deliveredTo('row2')).toHaveLength(0);
  });

  it("row 4: an Idempotency-Key sent with another template's token neither replays nor leaks the first send", async () => {
    const victimPath = 'row4-victim';
    const victim = await herald.createTemplate(
      { text: 'victim {{n}}', placeholders: [{ key: 'n', label: 'n' }] },
      [{ channelId: await webhook(victimPath), contentType: 'text' }],
    );
    const attacker = await herald.createTemplate({ text: 'attacker' }, [
      { channelId: await webhook('row4-attacker'), contentType: 'text' },
    ]);
    const key = { 'Idempotency-Key': 'nightly-backup' };
    const first = await herald.sendV2(
      { token: victim.token, title: 'row4 victim', placeholders: { n: 1 } },
      key,
    );
    expect(first.body).toMatchObject({ code: 200, data: { token: victim.token, count: 1 } });

    const probe = await herald.sendV2({ token: attacker.token, title: 'row4 attacker' }, key);
    expect(probe.body).toMatchObject({ code: 200, data: { token: attacker.token, count: 1 } });
    expect(JSON.stringify(probe.body)).not.toContain(victim.token);

    // The same caller still gets its first answer, and nothing is sent twice.
    const repeat = await herald.sendV2(
      { token: victim.token, title: 'row4 victim', placeholders: { n: 1 } },
      key,
    );
    expect(repeat.body).toEqual(first.body);
    await herald.waitFor(() => deliveredTo('row4-attacker').length === 1);
    await settle();
    expect(await Send.count({ where: { title: 'row4 victim' } })).toBe(1);
    expect(deliveredTo(victimPath)).toHaveLength(1);
    expect(await Send.count({ where: { title: 'row4 attacker' } })).toBe(1);
  });

  it('row 4: pre-claiming a key with another credential does not suppress the real send', async () => {
    const realPath = 'row4-real';
    const real = await herald.createTemplate({ text: 'real' }, [
      { channelId: await webhook(realPath), contentType: 'text' },
    ]);
    const attacker = await herald.createTemplate({ text: 'decoy' }, [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const key = { 'Idempotency-Key': 'deploy-42' };
    await herald.sendV2({ token: attacker.token, title: 'row4 decoy' }, key);
    const res = await herald.sendV2({ token: real.token, title: 'row4 real send' }, key);
    expect(res.body).toMatchObject({ code: 200, data: { token: real.token } });
    await herald.waitFor(() => deliveredTo(realPath).length === 1);
    expect(await Send.count({ where: { title: 'row4 real send' } })).toBe(1);

    // V1: a page guessing task_id (when it is on) cannot pre-claim a token caller's key.
    const taskPath = 'row4-task';
    const { task, token } = await herald.createTask('row4-task', [
      { channelId: await webhook(taskPath), contentType: 'text' },
    ]);
    await withSettings({ allowTaskId: true }, async () => {
      const v1Key = { 'Idempotency-Key': 'cron-7' };
      const claim = await herald.sendV1(
        { task_id: task.id, title: 'row4 v1 decoy', text: 'x' },
        v1Key,
      );
      expect(claim.body.code).toBe(200);
      const realV1 = await herald.sendV1({ token, title: 'row4 v1 real', text: 'x' }, v1Key);
      expect(realV1.body.code).toBe(200);
      expect(realV1.body.data.sendId).not.toBe(claim.body.data.sendId);
    });
    expect(await Send.count({ where: { title: 'row4 v1 real' } })).toBe(1);
    await herald.waitFor(() => deliveredTo(taskPath).length === 2);
    // Each credential holds its own key.
    const scopes = (await IdempotencyKey.findAll({ where: { key: 'cron-7' } })).map((r) => r.scope);
    expect(scopes.sort()).toEqual([`v1:task_id:${task.id}`, `v1:token:${task.id}.0`]);
  });

  it('row 6: a placeholder repeated 1,000 times and filled with 200 kB is refused before anything is stored', async () => {
    const path = 'row6';
    const placeholders = [{ key: 'v', label: 'value' }];
    const { template, token } = await herald.createTemplate(
      { text: '{{v}}\n'.repeat(1000), placeholders },
      [
        { channelId: await webhook(path), contentType: 'text' },
        { channelId: hostedId, contentType: 'text' },
      ],
    );
    const res = await herald.sendV2({
      token,
      title: 'row6 bomb',
      placeholders: { v: 'x'.repeat(200_000) },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, data: null });
    expect(res.body.msg).toBe(
      'placeholders: the filled text body would be 200,001,000 characters; the limit is 200,000 per body: send shorter placeholder values or shorten the template',
    );
    await settle();
    expect(await Send.count({ where: { templateId: template.id } })).toBe(0);
    expect(await HostedMessage.count({ where: { title: 'row6 bomb' } })).toBe(0);
    expect(deliveredTo(path)).toHaveLength(0);
  });

  it('row 6: the cap counts HTML escaping per format, and all bodies together', async () => {
    const path = 'row6-formats';
    const placeholders = [{ key: 'v', label: 'value' }];
    const channelId = await webhook(path);
    const html = await herald.createTemplate({ html: '<p>{{v}}</p>', placeholders }, [
      { channelId, contentType: 'html' },
    ]);
    // 50,000 ampersands are 50,000 characters of text but 250,000 once escaped into HTML.
    const escaped = await herald.sendV2({
      token: html.token,
      title: 'row6 html',
      placeholders: { v: '&'.repeat(50_000) },
    });
    expect(escaped.status).toBe(400);
    expect(escaped.body.msg).toMatch(
      /^placeholders: the filled html body would be 250,007 characters/,
    );

    const all = await herald.createTemplate(
      { text: '{{v}}', html: '{{v}}', markdown: '{{v}}', placeholders },
      [{ channelId, contentType: 'text' }],
    );
    const total = await herald.sendV2({
      token: all.token,
      title: 'row6 total',
      placeholders: { v: 'y'.repeat(180_000) },
    });
    expect(total.status).toBe(400);
    expect(total.body.msg).toBe(
      'placeholders: the filled bodies would be 540,000 characters together; the limit is 500,000 per send: send shorter placeholder values or shorten the template',
    );
    await settle();
    expect(await Send.count({ where: { templateId: [html.template.id, all.template.id] } })).toBe(
      0,
    );
    expect(deliveredTo(path)).toHaveLength(0);

    // Within the limits the same template sends.
    const ok = await herald.sendV2({
      token: all.token,
      title: 'row6 within',
      placeholders: { v: 'y'.repeat(1000) },
    });
    expect(ok.body.code).toBe(200);
    await herald.waitFor(() => deliveredTo(path).length === 1);
  });

  it('row 8: every spelling of one task_id, and its token, share one rate budget', async () => {
    const path = 'row8';
    const { task, token } = await herald.createTask('row8', [
      { channelId: await webhook(path), contentType: 'text' },
    ]);
    const other = await herald.createTask('row8-other', [
      { channelId: hostedId, contentType: 'text' },
    ]);
    const id = task.id as number;
    await withSettings({ allowTaskId: true, rateLimitPerMinute: 2 }, async () => {
      const spellings = [String(id), `0${id}`, `0x${id.toString(16)}`, `${id}.0`];
      const answers = [];
      for (const taskId of spellings) {
        answers.push(await herald.sendV1({ task_id: taskId, title: 'row8 spelled', text: 'x' }));
      }
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 429]);
      expect(answers[2].body).toMatchObject({
        code: 429,
        msg: 'rate limit: at most 2 sends a minute per task',
        data: null,
      });
      const byToken = await herald.sendV1({ token, title: 'row8 spelled', text: 'x' });
      expect(byToken.status).toBe(429);
      // Made-up credentials are refused for what they are and use no budget of anyone's.
      for (const bad of ['garbage', 'AAAA', `${token.slice(0, -2)}xx`]) {
        const res = await herald.sendV1({ token: bad, title: 'row8 spelled', text: 'x' });
        expect(res.status).toBe(401);
      }
      // Another task keeps its own budget.
      expect(
        (await herald.sendV1({ token: other.token, title: 'row8 other', text: 'x' })).status,
      ).toBe(200);
      // A minute later the task may send again (on PostgreSQL the shared limiter counts in
      // 1-second buckets, so "a minute" may be a second longer: docs/architecture.md).
      clock.advance(61_000);
      expect(
        (await herald.sendV1({ task_id: `0${id}`, title: 'row8 later', text: 'x' })).status,
      ).toBe(200);
    });
    await herald.waitFor(() => deliveredTo(path).length === 3);
    await settle();
    expect(await Send.count({ where: { title: 'row8 spelled' } })).toBe(2);
    expect(deliveredTo(path)).toHaveLength(3);
  });
});
