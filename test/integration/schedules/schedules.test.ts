import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';

import { Schedule, Send } from '../../../server/db/models';
import { Scheduler } from '../../../server/features/schedules/scheduler';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { ManualClock } from '../../helpers/manual-clock';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

const HOUR = 60 * 60_000;
const titles = (peer: HttpPeer) => peer.received.map((r) => (r.json as { title?: string }).title);
const sendsOf = (scheduleId: number) => Send.count({ where: { scheduleId } });

describe('scheduled messages', () => {
  let clock: ManualClock;
  let herald: TestHerald;
  let peer: HttpPeer;
  let taskId: number;
  let templateId: number;

  // A fresh Herald, clock and peer per test: a schedule left by one test would fire in another's
  // tick, and a moved clock would shift every run time computed after it.
  beforeEach(async () => {
    clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
    peer = await startHttpPeer();
    herald = await startTestHerald({ clock });
    const hook = await herald.createChannel('webhook', { url: `${peer.url}/hook` });
    taskId = (await herald.createTask('reports', [{ channelId: hook.id, contentType: 'text' }]))
      .task.id;
    templateId = (
      await herald.createTemplate(
        { text: 'Backup of {{host}} done', placeholders: [{ key: 'host', label: 'Host' }] },
        [{ channelId: hook.id, contentType: 'text' }],
      )
    ).template.id;
  });
  afterEach(async () => {
    await herald.close(true);
    await peer.close();
  });

  const create = (fields: Record<string, unknown>) =>
    herald.console.ok('POST', '/schedules', {
      name: 'daily',
      taskId,
      cron: '0 9 * * *',
      timezone: 'UTC',
      title: 'Daily report',
      text: 'All good',
      ...fields,
    });

  it('creates, reads, lists, updates and deletes a schedule', async () => {
    const created = await create({ name: 'crud', timezone: undefined });
    expect(created).toMatchObject({
      name: 'crud',
      taskId,
      templateId: null,
      sourceName: 'reports',
      cron: '0 9 * * *',
      runAt: null,
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      enabled: true,
      catchUp: 'once',
      lastRunAt: null,
      lastSendId: null,
    });
    expect(created.nextRunAt).not.toBeNull();
    expect(await herald.console.ok('GET', `/schedules/${created.id}`)).toEqual(created);

    const other = await create({ name: 'crud-2' });
    const page = await herald.console.ok('GET', '/schedules?name=crud&pageSize=1');
    expect(page).toMatchObject({ total: 2, page: 1, pageSize: 1 });
    expect(page.items.map((s: any) => s.id)).toEqual([other.id]);

    const disabled = await herald.console.ok('PATCH', `/schedules/${created.id}`, {
      enabled: false,
    });
    expect(disabled).toMatchObject({ enabled: false, nextRunAt: null });
    const moved = await herald.console.ok('PUT', `/schedules/${other.id}`, {
      cron: '30 14 * * *',
      timezone: 'asia/shanghai',
    });
    // 14:30 in Shanghai is 06:30 UTC: the clock stands at 08:00 UTC, so tomorrow's.
    expect(moved).toMatchObject({
      cron: '30 14 * * *',
      timezone: 'Asia/Shanghai',
      nextRunAt: '2026-11-23T06:30:00.000Z',
    });
    const toOnce = await herald.console.ok('PATCH', `/schedules/${other.id}`, {
      cron: null,
      runAt: '2026-11-22T10:15:00+01:00',
    });
    expect(toOnce).toMatchObject({
      cron: null,
      runAt: '2026-11-22T09:15:00.000Z',
      nextRunAt: '2026-11-22T09:15:00.000Z',
    });

    for (const id of [created.id, other.id]) {
      await herald.console.ok('DELETE', `/schedules/${id}`);
      expect((await herald.console.get(`/schedules/${id}`)).status).toBe(404);
    }
  });

  it('refuses bad input with a 400 that names the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: undefined }, /^name: is required/],
      [{ templateId }, /^taskId, templateId: give only one/],
      [{ taskId: null }, /^taskId, templateId: give one/],
      [{ taskId: 999_999 }, /^taskId: task 999999 does not exist/],
      [{ cron: '61 * * * *' }, /^cron: is not valid: .*minute/],
      [{ cron: '* * *' }, /^cron: has 3 fields/],
      [{ cron: '@every 5m' }, /^cron: @every is not supported/],
      [{ cron: '0 0 30 2 *' }, /^cron: .*never comes due/],
      [{ cron: null }, /^cron, runAt: give one/],
      [{ runAt: '2026-12-01T10:00:00Z' }, /^cron, runAt: give only one/],
      [{ cron: null, runAt: '2026-11-22T07:00:00Z' }, /^runAt: .* has passed/],
      [{ cron: null, runAt: '2026-11-22 07:00' }, /^runAt: must be an ISO 8601/],
      [{ timezone: 'Mars/Olympus' }, /^timezone: "Mars\/Olympus" is not a known IANA time zone/],
      [{ timezone: '+08:00' }, /^timezone: /],
      [{ text: null }, /^text, html, markdown: a task schedule sends its own content/],
      [{ placeholders: { a: '1' } }, /^placeholders: only a template schedule/],
      [{ taskId: null, templateId }, /^text: a template schedule sends its template's content/],
      [
        { taskId: null, templateId, text: null, atAll: true },
        /^atAll: a template schedule uses its template's mentions/,
      ],
      [{ catchUp: 'twice' }, /^catchUp: must be "once" or "skip"/],
      [{ enabled: 'yes' }, /^enabled: must be true or false/],
      [{ surprise: 1 }, /surprise/],
    ];
    for (const [fields, msg] of cases) {
      const res = await herald.console.post('/schedules', {
        name: 'bad',
        taskId,
        cron: '0 9 * * *',
        timezone: 'UTC',
        title: 'x',
        text: 'y',
        ...fields,
      });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.body.msg, JSON.stringify(fields)).toMatch(msg);
    }
    const s = await create({ name: 'patched' });
    const patched = await herald.console.patch(`/schedules/${s.id}`, {
      runAt: '2027-01-01T00:00:00Z',
    });
    expect(patched.status).toBe(400);
    expect(patched.body.msg).toMatch(/send the other as null/);
    expect((await herald.console.patch('/schedules/999999', { enabled: false })).status).toBe(404);
    await herald.console.ok('DELETE', `/schedules/${s.id}`);
  });

  it('previews the next five run times as the expression is typed', async () => {
    const preview = await herald.console.ok(
      'GET',
      `/schedules/preview?cron=${encodeURIComponent('0 9 * * 1-5')}&timezone=Europe/Berlin`,
    );
    // 22 Nov 2026 is a Sunday; 09:00 in Berlin (winter) is 08:00 UTC.
    expect(preview).toEqual({
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      runs: [
        '2026-11-23T08:00:00.000Z',
        '2026-11-24T08:00:00.000Z',
        '2026-11-25T08:00:00.000Z',
        '2026-11-26T08:00:00.000Z',
        '2026-11-27T08:00:00.000Z',
      ],
    });
    const bad = await herald.console.get(
      `/schedules/preview?cron=${encodeURIComponent('0 25 * * *')}`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/^cron: is not valid: .*hour/);
    const zone = await herald.console.get('/schedules/preview?cron=@daily&timezone=Nowhere');
    expect(zone.status).toBe(400);
    expect(zone.body.msg).toMatch(/^timezone: /);
    expect((await herald.console.get('/schedules/preview')).body.msg).toMatch(/^cron: is required/);
  });

  it('runs now: an ordinary send, linked to its schedule, that reaches the webhook', async () => {
    const s = await create({ name: 'run-now', title: 'Run me now', cron: '0 0 1 1 *' });
    const before = peer.received.length;
    const run = await herald.console.ok('POST', `/schedules/${s.id}/run`);
    expect(run.schedule).toMatchObject({ lastSendId: run.sendId, lastError: null });
    expect(run.schedule.nextRunAt).toBe(s.nextRunAt);
    await peer.waitForRequests(before + 1);
    expect(titles(peer).at(-1)).toBe('Run me now');
    const log = await herald.console.ok('GET', `/logs/${run.sendId}`);
    expect(log).toMatchObject({
      api: 'v1',
      taskId,
      scheduleId: s.id,
      scheduleName: 'run-now',
      title: 'Run me now',
      text: 'All good',
    });
    const listed = await herald.console.ok('GET', '/logs?pageSize=100');
    expect(listed.items.find((l: any) => l.id === run.sendId).scheduleId).toBe(s.id);

    const tpl = await create({
      name: 'template-run',
      taskId: null,
      templateId,
      text: null,
      title: 'Backups',
      placeholders: { host: 'db-1' },
    });
    const tplRun = await herald.console.ok('POST', `/schedules/${tpl.id}/run`);
    await peer.waitForRequests(before + 2);
    const got = peer.received.at(-1)!.json as { title: string; content: string };
    expect(got).toMatchObject({ title: 'Backups', content: 'Backup of db-1 done' });
    expect(await herald.console.ok('GET', `/logs/${tplRun.sendId}`)).toMatchObject({
      api: 'v2',
      templateId,
      scheduleId: tpl.id,
    });
  });

  it('`sendScheduled()` sends with the current token, logged as a call with it, outside the rate limit', async () => {
    // Rotated first: the run must use the token current at run time, not one minted earlier.
    const { token: taskToken } = await herald.console.ok('POST', `/tasks/${taskId}/token/rotate`);
    const { token: templateToken } = await herald.console.ok(
      'POST',
      `/templates/${templateId}/token/rotate`,
    );
    const task = await create({ name: 'logged-task', cron: '0 0 1 1 *' });
    const template = await create({
      name: 'logged-template',
      taskId: null,
      templateId,
      text: null,
      title: 'Backups',
      placeholders: { host: 'db-2' },
    });
    await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 1 });
    try {
      expect((await herald.sendV1({ token: taskToken, title: 'a', text: 'x' })).status).toBe(200);
      expect((await herald.sendV2({ token: templateToken, title: 'b' })).status).toBe(200);
      const taskRun = await herald.console.ok('POST', `/schedules/${task.id}/run`);
      const templateRun = await herald.console.ok('POST', `/schedules/${template.id}/run`);
      // The runs took no slot: the callers' next sends are refused for the ones they made.
      expect((await herald.sendV1({ token: taskToken, title: 'c', text: 'x' })).status).toBe(429);
      expect((await herald.sendV2({ token: templateToken, title: 'd' })).status).toBe(429);

      expect(await herald.console.ok('GET', `/logs/${taskRun.sendId}`)).toMatchObject({
        credential: 'token',
        request: {
          token: `${taskToken.slice(0, 6)}…`,
          title: 'Daily report',
          text: 'All good',
          mode: 'async',
        },
      });
      expect(await herald.console.ok('GET', `/logs/${templateRun.sendId}`)).toMatchObject({
        credential: 'token',
        request: {
          token: `${templateToken.slice(0, 6)}…`,
          title: 'Backups',
          placeholders: { host: 'db-2' },
        },
      });
    } finally {
      await herald.console.ok('PUT', '/settings', { rateLimitPerMinute: 0 });
    }
  });

  it('run now answers why a send is refused, and records it on the schedule', async () => {
    const empty = await herald.createTask('no instances', []);
    const s = await create({ name: 'refused', taskId: empty.task.id });
    const res = await herald.console.post(`/schedules/${s.id}/run`);
    expect(res.status).toBe(400);
    expect(res.body.msg).toMatch(/has no instances/);
    expect(await herald.console.ok('GET', `/schedules/${s.id}`)).toMatchObject({
      lastError: res.body.msg,
      lastSendId: null,
    });
    await herald.console.ok('DELETE', `/schedules/${s.id}`);
  });

  it('fires a cron schedule when its time comes, once, and moves to the next time', async () => {
    clock.set(Date.parse('2026-11-22T08:00:00.000Z'));
    const s = await create({ name: 'on-time', cron: '0 9 * * *', title: 'Nine o clock' });
    expect(s.nextRunAt).toBe('2026-11-22T09:00:00.000Z');
    clock.set(Date.parse('2026-11-22T08:59:59.000Z'));
    await herald.server.scheduler.tick();
    expect(await sendsOf(s.id)).toBe(0);
    clock.set(Date.parse('2026-11-22T09:00:00.000Z'));
    const before = peer.received.length;
    await herald.server.scheduler.tick();
    await peer.waitForRequests(before + 1);
    expect(titles(peer).at(-1)).toBe('Nine o clock');
    const after = await herald.console.ok('GET', `/schedules/${s.id}`);
    expect(after).toMatchObject({
      nextRunAt: '2026-11-23T09:00:00.000Z',
      lastRunAt: '2026-11-22T09:00:00.000Z',
      lastError: null,
    });
    expect((await herald.console.ok('GET', `/logs/${after.lastSendId}`)).scheduleId).toBe(s.id);
    await herald.server.scheduler.tick();
    expect(await sendsOf(s.id)).toBe(1);
    await herald.console.ok('DELETE', `/schedules/${s.id}`);
  });

  it('fires a one-time schedule once and then disables it', async () => {
    clock.set(Date.parse('2026-11-22T08:00:00.000Z'));
    const s = await create({ name: 'once', cron: null, runAt: '2026-11-22T08:30:00Z' });
    expect(s.nextRunAt).toBe('2026-11-22T08:30:00.000Z');
    clock.set(Date.parse('2026-11-22T08:30:00.000Z'));
    await herald.server.scheduler.tick();
    expect(await herald.console.ok('GET', `/schedules/${s.id}`)).toMatchObject({
      enabled: false,
      nextRunAt: null,
      lastRunAt: '2026-11-22T08:30:00.000Z',
    });
    clock.advance(24 * HOUR);
    await herald.server.scheduler.tick();
    expect(await sendsOf(s.id)).toBe(1);
    const again = await herald.console.patch(`/schedules/${s.id}`, { enabled: true });
    expect(again.status).toBe(400);
    expect(again.body.msg).toMatch(/^runAt: .* has passed; pick a later time/);
    await herald.console.ok('DELETE', `/schedules/${s.id}`);
  });

  it('never sends a run twice when ticks overlap, in one process or two', async () => {
    clock.set(Date.parse('2026-11-22T08:00:00.000Z'));
    const s = await create({ name: 'overlap', cron: '*/10 * * * *' });
    const other = new Scheduler(herald.server.ctx);
    for (let round = 1; round <= 3; round++) {
      clock.advance(10 * 60_000);
      const claimed = await Promise.all([
        herald.server.scheduler.tick(),
        herald.server.scheduler.tick(),
        other.tick(),
        other.tick(),
      ]);
      expect(claimed.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await sendsOf(s.id)).toBe(round);
    }
    await herald.console.ok('DELETE', `/schedules/${s.id}`);
  });
});

describe('scheduled messages on the real clock', () => {
  it('fires by itself at its time on the real clock, without a tick from outside', async () => {
    const realPeer = await startHttpPeer();
    const real = await startTestHerald();
    try {
      const hook = await real.createChannel('webhook', { url: `${realPeer.url}/real` });
      const { task } = await real.createTask('real', [{ channelId: hook.id, contentType: 'text' }]);
      await real.console.ok('POST', '/schedules', {
        name: 'soon',
        taskId: task.id,
        runAt: new Date(Date.now() + 1500).toISOString(),
        title: 'By itself',
        text: 'tick tock',
      });
      const [got] = await realPeer.waitForRequests(1, 20_000);
      expect((got.json as { title: string }).title).toBe('By itself');
    } finally {
      await real.close(true);
      await realPeer.close();
    }
  });
});

describe('runs missed while Herald was closed', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-schedules-'));
  const clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
  let peer: HttpPeer;
  afterAll(async () => {
    await peer.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends one catch-up run with "once", none with "skip", never several', async () => {
    peer = await startHttpPeer();
    let herald = await startTestHerald({ dataDir, clock });
    const hook = await herald.createChannel('webhook', { url: `${peer.url}/missed` });
    const { task } = await herald.createTask('hourly', [
      { channelId: hook.id, contentType: 'text' },
    ]);
    const make = (name: string, catchUp: string, extra: Record<string, unknown> = {}) =>
      herald.console.ok('POST', '/schedules', {
        name,
        taskId: task.id,
        cron: '0 * * * *',
        timezone: 'UTC',
        title: name,
        text: 'missed?',
        catchUp,
        ...extra,
      });
    const once = await make('catch-up-once', 'once');
    const skip = await make('catch-up-skip', 'skip');
    const onceAt = await make('one-time-once', 'once', {
      cron: null,
      runAt: '2026-11-22T10:00:00Z',
    });
    const skipAt = await make('one-time-skip', 'skip', {
      cron: null,
      runAt: '2026-11-22T10:00:00Z',
    });
    await herald.close();

    // Five hourly runs and both one-time runs come due while Herald is closed.
    clock.set(Date.parse('2026-11-22T13:30:00.000Z'));
    herald = await startTestHerald({ dataDir, clock });
    try {
      await peer.waitForRequests(2);
      // Another look at the table sends nothing more.
      await herald.server.scheduler.tick();
      expect(await sendsOf(once.id)).toBe(1);
      expect(await sendsOf(onceAt.id)).toBe(1);
      expect(await sendsOf(skip.id)).toBe(0);
      expect(await sendsOf(skipAt.id)).toBe(0);
      expect(titles(peer).sort()).toEqual(['catch-up-once', 'one-time-once']);
      const rows = new Map((await Schedule.findAll()).map((s) => [s.id, s]));
      expect(rows.get(once.id)).toMatchObject({
        enabled: true,
        nextRunAt: Date.parse('2026-11-22T14:00:00.000Z'),
      });
      expect(rows.get(skip.id)).toMatchObject({
        enabled: true,
        nextRunAt: Date.parse('2026-11-22T14:00:00.000Z'),
      });
      expect(rows.get(skip.id)!.lastError).toMatch(/skipped .*catch-up: skip/);
      expect(rows.get(skipAt.id)).toMatchObject({ enabled: false, nextRunAt: null });
      expect(rows.get(onceAt.id)).toMatchObject({ enabled: false, nextRunAt: null });

      // From here on both repeat on time.
      clock.set(Date.parse('2026-11-22T14:00:00.000Z'));
      await herald.server.scheduler.tick();
      await peer.waitForRequests(4);
      expect(await sendsOf(once.id)).toBe(2);
      expect(await sendsOf(skip.id)).toBe(1);
    } finally {
      await herald.close();
    }
  });
});
