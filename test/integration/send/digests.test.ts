import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { pruneHistory } from '../../../server/db/history/retention';

import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';

/**
 * Digests (issue 46 §2) over real HTTP with a moved clock: what a collected send is answered on
 * V1, V2 and a hook; a window of 50 sends delivered as one message per channel, each in its own
 * markup, with the count, the first and last times, 20 titles, "and 30 more" and the link to
 * the send log; the log's links both ways; priority bypass; dedup before collection; keys;
 * cron windows. The folder runs on SQLite, then on PostgreSQL.
 */
const T0 = Date.parse('2026-11-22T08:00:00.000Z');
const MINUTE = 60_000;

let clock: ManualClock;
let herald: TestHerald;
let peer: HttpPeer;

beforeAll(async () => {
  clock = new ManualClock(T0);
  peer = await startHttpPeer();
  herald = await startTestHerald({ clock, settings: { allowTaskId: true } });
  // Only the test's own ticks close digests: the background look would race them on the moved clock.
  await herald.server.ctx.digests.stop();
});
afterAll(async () => {
  await herald.close(true);
  await peer.close();
});

const digests = () => herald.server.ctx.digests;

/**
 * The file's tests run in a shuffled order (CI), and `tick()` closes every due digest in the
 * database, not only a test's own: so before each test, whatever digests the tests before it
 * left open are closed (at the latest of their ends) and delivered, and a test's tick counts
 * its own digests alone. Each test then sets the clock it needs.
 */
beforeEach(async () => {
  const { sequelize } = herald.server.ctx;
  const [open] = await sequelize.query<{ until: number | string | null }>(
    `SELECT max(window_until) AS until FROM digests WHERE status = 'open'`,
    { type: QueryTypes.SELECT },
  );
  if (open.until === null) return;
  clock.set(Math.max(clock.now(), Number(open.until)));
  await digests().tick();
  await herald.waitFor(async () => {
    const [row] = await sequelize.query<{ n: number | string }>(
      `SELECT count(*) AS n FROM digests d LEFT JOIN sends s ON s.id = d.send_id
       WHERE d.status = 'open' OR s.status = 'pending'`,
      { type: QueryTypes.SELECT },
    );
    return Number(row.n) === 0;
  });
});

/** A webhook channel of its own path on the peer, so each channel's requests can be told apart. */
const webhook = async (path: string) =>
  (await herald.createChannel('webhook', { url: `${peer.url}/${path}` }, path)).id;

/** The newest send of a template, as the send log lists it. */
async function lastSendId(templateId: number): Promise<number> {
  const { items } = await herald.console.ok('GET', `/logs?templateId=${templateId}`);
  return items[0].id;
}

const at = (path: string) => peer.received.filter((r) => r.url === `/${path}`);

describe('a window of 50 sends', () => {
  it('is delivered as one message per channel, in its markup, with the count, times, titles and link', async () => {
    clock.set(T0);
    const textId = await webhook('fifty-text');
    const markdownId = await webhook('fifty-markdown');
    const htmlId = await webhook('fifty-html');
    const { template, token } = await herald.createTemplate(
      {
        name: 'backups',
        text: '{{host}} backed up',
        placeholders: [{ key: 'host', label: 'Host' }],
      },
      [
        { channelId: textId, contentType: 'text' },
        { channelId: markdownId, contentType: 'markdown' },
        { channelId: htmlId, contentType: 'html' },
      ],
    );
    await digests().rules.put('template', template.id, {
      windowMinutes: 10,
      cron: null,
      timezone: null,
      priorityThreshold: 5,
      titleLimit: 20,
    });
    const until = new Date(T0 + 10 * MINUTE).toISOString();
    for (let i = 1; i <= 50; i++) {
      const r = await herald.sendV2({
        token,
        title: `backup ${i}`,
        placeholders: { host: `h${i}` },
      });
      expect(r.body).toEqual({
        code: 200,
        msg: 'success',
        data: { token, count: 0, digest: { until } },
      });
      clock.advance(1_000);
    }
    // 08:00:49 is the last send's time; the window is still open.
    expect(await digests().tick()).toBe(0);
    const { items } = await herald.console.ok(
      'GET',
      `/logs?templateId=${template.id}&status=collected&pageSize=100`,
    );
    expect(items).toHaveLength(50);

    clock.set(T0 + 10 * MINUTE);
    expect(await digests().tick()).toBe(1);
    await herald.waitFor(() =>
      ['fifty-text', 'fifty-markdown', 'fifty-html'].every((path) => at(path).length > 0),
    );
    await herald.waitFor(async () => {
      const list = await herald.console.ok('GET', `/logs?templateId=${template.id}&status=sent`);
      return list.items.length === 1;
    });
    // Closed once: another look sends nothing more.
    expect(await digests().tick()).toBe(0);
    const [digestSend] = (
      await herald.console.ok('GET', `/logs?templateId=${template.id}&status=sent`)
    ).items;
    expect(digestSend.title).toBe('Digest: 50 messages from backups');
    const link = `${herald.url}/logs/${digestSend.id}`;
    for (const path of ['fifty-text', 'fifty-markdown', 'fifty-html']) {
      expect(at(path), path).toHaveLength(1);
    }
    const body = (path: string) =>
      at(path)[0].json as { title: string; content: string; url: string };
    const text = body('fifty-text');
    expect(text.title).toBe('Digest: 50 messages from backups');
    expect(text.content).toContain(
      '50 messages, from 2026-11-22 08:00:00 UTC to 2026-11-22 08:00:49 UTC:',
    );
    expect(text.content).toContain('- backup 1\n');
    expect(text.content).toContain('- backup 20\n');
    expect(text.content).not.toContain('backup 21');
    expect(text.content).toContain('and 30 more');
    expect(text.content).toContain(`All of them: ${link}`);
    expect(text.url).toBe(link);
    const markdown = body('fifty-markdown').content;
    expect(markdown).toContain('**50 messages, from 2026-11-22 08:00:00 UTC');
    expect(markdown).toContain(`[All of them in the send log](${link})`);
    const html = body('fifty-html').content;
    expect(html).toContain('<li>backup 20</li>');
    expect(html).not.toContain('backup 21');
    expect(html).toContain(`<a href="${link}">`);

    // The log, both ways: the digest lists its 50 sends; each collected send names the digest.
    const detail = await herald.console.ok('GET', `/logs/${digestSend.id}`);
    expect(detail.digestOf.map((s: { title: string }) => s.title)).toEqual(
      Array.from({ length: 50 }, (_, i) => `backup ${i + 1}`),
    );
    expect(detail.deliveries).toHaveLength(3);
    const one = await herald.console.ok('GET', `/logs/${detail.digestOf[7].id}`);
    expect(one.status).toBe('collected');
    expect(one.deliveries).toEqual([]);
    expect(one.collectedInto).toEqual({
      digestId: expect.any(Number),
      until,
      digestSendId: digestSend.id,
    });
    expect(one.digestOf).toBeNull();
  });
});

describe('answers and what skips a digest', () => {
  /**
   * A task and a template of their own, both on one webhook path of their own, each with a
   * 5-minute digest that priority 4 and above skips; the clock at 09:00.
   */
  async function collecting(path: string, taskName = `${path} task`, templateName = path) {
    clock.set(T0 + 60 * MINUTE);
    const channelId = await webhook(path);
    const task = await herald.createTask(taskName, [{ channelId, contentType: 'text' }]);
    const template = await herald.createTemplate({ name: templateName, text: 'ping' }, [
      { channelId, contentType: 'text' },
    ]);
    const rule = {
      windowMinutes: 5,
      cron: null,
      timezone: null,
      priorityThreshold: 4,
      titleLimit: 20,
    };
    await digests().rules.put('task', task.task.id, rule);
    await digests().rules.put('template', template.template.id, rule);
    return {
      taskId: task.task.id as number,
      taskToken: task.token,
      templateId: template.template.id as number,
      templateToken: template.token,
    };
  }

  it('answers data.digest.until on V1, V2 and a hook, and stores the send collected', async () => {
    const hookPath = 'answers-until';
    const { taskToken, templateId, templateToken } = await collecting(hookPath);
    const until = new Date(clock.now() + 5 * MINUTE).toISOString();
    const v1 = await herald.sendV1({ token: taskToken, title: 'cpu', text: 'cpu high' });
    expect(v1.body).toEqual({
      code: 200,
      msg: 'success',
      data: { status: 'collected', sendId: expect.any(Number), digest: { until } },
    });
    const v2 = await herald.sendV2({ token: templateToken, title: 'ping 1' });
    expect(v2.body.data).toEqual({ token: templateToken, count: 0, digest: { until } });
    const keyed = await herald.sendV2({
      token: templateToken,
      title: 'ping 2',
      digestKey: 'night',
    });
    expect(keyed.body.data).toEqual({ token: templateToken, count: 0, digest: { until } });
    expect(
      (await herald.console.ok('GET', `/logs/${await lastSendId(templateId)}`)).request,
    ).toMatchObject({ digestKey: 'night' });
    const hook = await herald.post(`/api/hooks/generic/${templateToken}?digestKey=night`, {
      title: 'from a hook',
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    expect(hook.body.data).toMatchObject({ count: 0, digest: { until } });
    const logged = await herald.console.ok('GET', `/logs/${v1.body.data.sendId}`);
    expect(logged).toMatchObject({ status: 'collected', deliveryCount: 0, deliveries: [] });
    expect(at(hookPath)).toHaveLength(0);
  });

  it('sends a priority at or above the threshold at once, and collects one below it', async () => {
    const hookPath = 'answers-priority';
    const { templateToken } = await collecting(hookPath);
    const urgent = await herald.sendV2({ token: templateToken, title: 'urgent', priority: 4 });
    expect(urgent.body.data).toEqual({ token: templateToken, count: 1 });
    await herald.waitFor(() => at(hookPath).length > 0);
    expect(at(hookPath).map((r) => (r.json as { title: string }).title)).toEqual(['urgent']);
    const low = await herald.sendV2({ token: templateToken, title: 'not urgent', priority: 3 });
    expect(low.body.data.digest).toBeDefined();
  });

  it('dedups first: a send its dedup key suppresses is not collected', async () => {
    const { taskToken } = await collecting('answers-dedup');
    const first = await herald.sendV1({
      token: taskToken,
      title: 'disk',
      text: 'disk',
      dedupKey: 'disk',
    });
    expect(first.body.data).toMatchObject({ status: 'collected', deduplicated: false });
    const again = await herald.sendV1({
      token: taskToken,
      title: 'disk',
      text: 'disk',
      dedupKey: 'disk',
    });
    expect(again.body.data).toEqual({
      status: 'suppressed',
      sendId: expect.any(Number),
      deduplicated: true,
      firstSendId: first.body.data.sendId,
    });
    const suppressed = await herald.console.ok('GET', `/logs/${again.body.data.sendId}`);
    expect(suppressed.status).toBe('suppressed');
    expect(suppressed.collectedInto).toBeNull();
  });

  it('closes each digest key apart, each with its own sends', async () => {
    const { taskId, taskToken, templateId, templateToken } = await collecting(
      'answers-keys',
      'alerts',
      'pings',
    );
    await herald.sendV1({ token: taskToken, title: 'cpu', text: 'cpu high' });
    await herald.sendV1({ token: taskToken, title: 'disk', text: 'disk', dedupKey: 'disk' });
    // Suppressed by its dedup key: not one of the task digest's messages.
    await herald.sendV1({ token: taskToken, title: 'disk', text: 'disk', dedupKey: 'disk' });
    await herald.sendV2({ token: templateToken, title: 'ping 1' });
    await herald.sendV2({ token: templateToken, title: 'ping 2', digestKey: 'night' });
    await herald.post(`/api/hooks/generic/${templateToken}?digestKey=night`, {
      title: 'from a hook',
    });
    // Skips the digest; one below the threshold joins it.
    await herald.sendV2({ token: templateToken, title: 'urgent', priority: 4 });
    await herald.sendV2({ token: templateToken, title: 'not urgent', priority: 3 });
    clock.advance(5 * MINUTE);
    // The task's digest, the template's own and its "night" key.
    expect(await digests().tick()).toBe(3);
    const all = await herald.waitFor(async () => {
      const found = [];
      for (const owner of [`taskId=${taskId}`, `templateId=${templateId}`]) {
        const list = await herald.console.ok('GET', `/logs?${owner}&status=sent`);
        found.push(...list.items.filter((s: { title: string }) => s.title.startsWith('Digest:')));
      }
      return found.length >= 3 ? found : null;
    });
    const titles = all.map((s: { title: string }) => s.title);
    expect(titles.sort()).toEqual([
      'Digest: 2 messages from alerts',
      'Digest: 2 messages from pings',
      'Digest: 2 messages from pings (night)',
    ]);
    const night = all.find((s: { title: string }) => s.title.endsWith('(night)'));
    const detail = await herald.console.ok('GET', `/logs/${night.id}`);
    expect(detail.digestOf.map((s: { title: string }) => s.title)).toEqual([
      'ping 2',
      'from a hook',
    ]);
    const pings = all.find((s: { title: string }) => s.title === 'Digest: 2 messages from pings');
    expect(
      (await herald.console.ok('GET', `/logs/${pings.id}`)).digestOf.map(
        (s: { title: string }) => s.title,
      ),
    ).toEqual(['ping 1', 'not urgent']);
  });
});

describe("an instance's own digest", () => {
  it("collects only that instance's deliveries; the task's other instance delivers at once", async () => {
    clock.set(T0 + 3 * 60 * MINUTE);
    const nowId = await webhook('instance-now');
    const laterId = await webhook('instance-later');
    const { task, token } = await herald.createTask('mixed', [
      { channelId: nowId, contentType: 'text' },
      { channelId: laterId, contentType: 'text' },
    ]);
    const instances = await herald.console.ok('GET', `/tasks/${task.id}/instances`);
    const later = instances.find((i: { channelId: number }) => i.channelId === laterId);
    await herald.console.ok('PUT', `/instances/${later.id}/digest`, { windowMinutes: 15 });
    const until = new Date(clock.now() + 15 * MINUTE).toISOString();
    const sendIds: number[] = [];
    for (const title of ['m1', 'm2', 'm3']) {
      const r = await herald.sendV1({ token, title, text: title });
      expect(r.body.data).toMatchObject({ status: 'sent', digest: { until } });
      sendIds.push(r.body.data.sendId);
      clock.advance(MINUTE);
    }
    expect(at('instance-now').map((r) => (r.json as { title: string }).title)).toEqual([
      'm1',
      'm2',
      'm3',
    ]);
    expect(at('instance-later')).toHaveLength(0);
    const first = await herald.console.ok('GET', `/logs/${sendIds[0]}`);
    expect(first).toMatchObject({ status: 'sent', deliveryCount: 1 });
    expect(first.collectedInto).toMatchObject({ until, digestSendId: null });

    clock.set(T0 + 3 * 60 * MINUTE + 15 * MINUTE);
    expect(await digests().tick()).toBe(1);
    const [digest] = await herald.waitFor(() =>
      at('instance-later').length ? at('instance-later') : null,
    );
    const content = (digest.json as { content: string }).content;
    expect(content).toContain(
      '3 messages, from 2026-11-22 11:00:00 UTC to 2026-11-22 11:02:00 UTC:',
    );
    expect(content).toContain('- m3');
    // The digest went to that instance alone.
    expect(at('instance-now')).toHaveLength(3);
    const again = await herald.console.ok('GET', `/logs/${sendIds[2]}`);
    expect(again.collectedInto.digestSendId).toEqual(expect.any(Number));
  });
});

describe('a cron window', () => {
  it('closes at the next time of the expression in its zone', async () => {
    // 10:07 in UTC is 18:07 in Shanghai: the window ends at 18:15 there.
    clock.set(Date.parse('2026-11-22T10:07:00.000Z'));
    const channelId = await webhook('cron');
    const { template, token } = await herald.createTemplate({ name: 'quarter', text: 'q' }, [
      { channelId, contentType: 'text' },
    ]);
    await digests().rules.put('template', template.id, {
      windowMinutes: null,
      cron: '*/15 * * * *',
      timezone: 'Asia/Shanghai',
      priorityThreshold: 5,
      titleLimit: 20,
    });
    const r = await herald.sendV2({ token, title: 'q1' });
    expect(r.body.data.digest).toEqual({ until: '2026-11-22T10:15:00.000Z' });
    clock.set(Date.parse('2026-11-22T10:15:00.000Z'));
    expect(await digests().tick()).toBe(1);
    const [req] = await herald.waitFor(() => (at('cron').length ? at('cron') : null));
    expect((req.json as { content: string }).content).toContain(
      '1 message, at 2026-11-22 18:07:00 Asia/Shanghai:',
    );
  });
});

describe('retention', () => {
  it('forgets digests closed before the sends retention, and keeps open ones', async () => {
    const { sequelize, writeLock } = herald.server.ctx;
    const count = async (status: string) => {
      const [row] = await sequelize.query<{ n: number | string }>(
        `SELECT count(*) AS n FROM digests WHERE status = '${status}'`,
        { type: QueryTypes.SELECT },
      );
      return Number(row.n);
    };
    // A day after every other test's times, so the prune below, two days on, is past every
    // digest closed in this file.
    clock.set(T0 + 24 * 60 * MINUTE);
    const channelId = await webhook('retention');
    const { template, token } = await herald.createTemplate({ name: 'kept', text: 'k' }, [
      { channelId, contentType: 'text' },
    ]);
    await digests().rules.put('template', template.id, {
      windowMinutes: 60,
      cron: null,
      timezone: null,
      priorityThreshold: 5,
      titleLimit: 20,
    });
    // One digest closed, then one left open: its window has not ended.
    await herald.sendV2({ token, title: 'closed' });
    clock.advance(60 * MINUTE);
    expect(await digests().tick()).toBe(1);
    await herald.sendV2({ token, title: 'still open' });
    expect(await count('closed')).toBeGreaterThan(0);
    expect(await count('open')).toBe(1);
    const retention = { ...herald.server.ctx.settings.get().retention, sendsDays: 1 };
    await pruneHistory(sequelize, writeLock, retention, clock.now() + 2 * 24 * 60 * MINUTE);
    expect(await count('closed')).toBe(0);
    expect(await count('open')).toBe(1);
    const [{ n }] = await sequelize.query<{ n: number | string }>(
      `SELECT count(*) AS n FROM digest_sends ds JOIN digests d ON d.id = ds.digest_id`,
      { type: QueryTypes.SELECT },
    );
    expect(Number(n)).toBe(1);
  });
});
