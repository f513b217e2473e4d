import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

const TOKEN = 'scrape-token-0123456789';

/** Samples of a Prometheus text exposition, by `name{labels}` as printed. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

async function scrape(herald: TestHerald, token?: string): Promise<Map<string, number>> {
  const res = await fetch(`${herald.url}/metrics`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return samples(await res.text());
}

describe('/metrics off (the default)', () => {
  let herald: TestHerald;
  let rendererDir: string;

  beforeAll(async () => {
    // A built console: its history fallback answers every unknown GET with the page.
    rendererDir = mkdtempSync(join(tmpdir(), 'herald-renderer-'));
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>console</title>');
    herald = await startTestHerald({ setup: false, rendererDir });
  });
  afterAll(async () => {
    await herald.close(true);
    rmSync(rendererDir, { recursive: true, force: true });
  });

  it('answers 404, not the console page', async () => {
    const res = await fetch(`${herald.url}/metrics`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: number }).code).toBe(404);
    // The fallback is there: the 404 above is the route's own.
    expect((await fetch(`${herald.url}/some/page`)).status).toBe(200);
  });
});

describe('/metrics on', () => {
  let herald: TestHerald;
  let peer: HttpPeer;
  let clock: ManualClock;
  let templateToken: string;
  let taskId: number;
  let taskToken: string;

  beforeAll(async () => {
    clock = new ManualClock();
    // Deliveries run only when a test says so, so the queue can be seen filling up. Every test
    // leaves the queue empty and reads counters as differences, so any order works.
    herald = await startTestHerald({
      clock,
      startDispatcher: false,
      metrics: { enabled: true },
    });
    peer = await startHttpPeer();
    const webhook = await herald.createChannel('webhook', { url: `${peer.url}/hook` });
    const instances = [{ channelId: webhook.id, contentType: 'text' as const }];
    templateToken = (await herald.createTemplate({ text: 'metrics' }, instances)).token;
    const task = await herald.createTask('metrics-task', instances);
    taskId = task.task.id;
    taskToken = task.token;
  });
  afterAll(async () => {
    await herald.close(true);
    await peer.close();
  });

  const counter = (s: Map<string, number>, key: string) => s.get(key) ?? 0;
  const V1 = 'herald_sends_accepted_total{api="v1",origin="request"}';
  const V2 = 'herald_sends_accepted_total{api="v2",origin="request"}';
  const attempts = (status: string) =>
    `herald_delivery_attempts_total{channel_kind="webhook",status="${status}"}`;
  const DURATIONS = 'herald_delivery_attempt_duration_seconds_count{channel_kind="webhook"}';

  it('counts sends per API, shows the queue filling, ageing and draining, and counts attempts', async () => {
    const before = await scrape(herald);
    expect(before.get('herald_deliveries_open{status="queued"}')).toBe(0);
    expect(before.get('herald_delivery_oldest_due_age_seconds')).toBe(0);
    expect(before.get('herald_queue_stats_up')).toBe(1);

    for (const title of ['one', 'two']) {
      expect((await herald.sendV2({ token: templateToken, title })).status).toBe(200);
    }
    const v1 = await herald.sendV1({ token: taskToken, title: 'three', text: 'x', mode: 'async' });
    expect(v1.status).toBe(200);

    const accepted = await scrape(herald);
    expect(counter(accepted, V2) - counter(before, V2)).toBe(2);
    expect(counter(accepted, V1) - counter(before, V1)).toBe(1);
    expect(
      counter(accepted, 'herald_deliveries_accepted_total') -
        counter(before, 'herald_deliveries_accepted_total'),
    ).toBe(3);
    expect(accepted.get('herald_deliveries_open{status="queued"}')).toBe(3);
    expect(accepted.get('herald_deliveries_open{status="sending"}')).toBe(0);
    // Due the moment they were accepted: on this clock no time has passed yet.
    expect(accepted.get('herald_delivery_oldest_due_age_seconds')).toBe(0);

    clock.advance(90_000);
    expect((await scrape(herald)).get('herald_delivery_oldest_due_age_seconds')).toBe(90);

    peer.script.push({ status: 200 }, { status: 503, body: 'busy' }, { status: 400, body: 'no' });
    expect(await herald.server.ctx.dispatcher.runDue()).toBe(3);
    const ran = await scrape(herald);
    for (const status of ['sent', 'retrying', 'failed']) {
      expect(counter(ran, attempts(status)) - counter(before, attempts(status)), status).toBe(1);
    }
    expect(counter(ran, DURATIONS) - counter(before, DURATIONS)).toBe(3);
    expect(ran.get('herald_deliveries_open{status="queued"}')).toBe(0);
    expect(ran.get('herald_deliveries_open{status="retrying"}')).toBe(1);
    // The retry is not due yet (50 ms from now on this clock).
    expect(ran.get('herald_delivery_oldest_due_age_seconds')).toBe(0);

    clock.advance(10_000);
    expect((await scrape(herald)).get('herald_delivery_oldest_due_age_seconds')).toBe(9.95);

    expect(await herald.server.ctx.dispatcher.runDue()).toBe(1);
    const drained = await scrape(herald);
    expect(counter(drained, attempts('sent')) - counter(before, attempts('sent'))).toBe(2);
    expect(drained.get('herald_deliveries_open{status="retrying"}')).toBe(0);
    expect(drained.get('herald_delivery_oldest_due_age_seconds')).toBe(0);
  });

  it('counts the run of a schedule apart from requests', async () => {
    const key = 'herald_sends_accepted_total{api="v1",origin="schedule"}';
    const before = await scrape(herald);
    const schedule = await herald.console.ok('POST', '/schedules', {
      name: 'metrics-schedule',
      taskId,
      cron: '0 0 1 1 *',
      timezone: 'UTC',
      title: 'scheduled',
      text: 'x',
    });
    await herald.console.ok('POST', `/schedules/${schedule.id}/run`);
    const after = await scrape(herald);
    expect(counter(after, key) - counter(before, key)).toBe(1);
    expect(counter(after, V1) - counter(before, V1)).toBe(0);
    expect(await herald.server.ctx.dispatcher.runDue()).toBe(1);
  });

  it('says nothing of channels, tokens or content', async () => {
    const text = await (await fetch(`${herald.url}/metrics`)).text();
    for (const secret of [templateToken, taskToken, peer.url, 'metrics-task', 'busy']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('/metrics with a token, and two Heralds in one process', () => {
  let guarded: TestHerald;
  let open: TestHerald;

  beforeAll(async () => {
    guarded = await startTestHerald({ metrics: { enabled: true, token: TOKEN } });
    open = await startTestHerald({ metrics: { enabled: true } });
  });
  afterAll(async () => {
    await guarded.close(true);
    await open.close(true);
  });

  it('refuses a scraper without the bearer token', async () => {
    const none = await fetch(`${guarded.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    const wrong = await fetch(`${guarded.url}/metrics`, {
      headers: { Authorization: `Bearer ${TOKEN.replace('0', 'x')}` },
    });
    expect(wrong.status).toBe(401);
    expect((await scrape(guarded, TOKEN)).get('herald_queue_stats_up')).toBe(1);
  });

  it('keeps each server its own counts', async () => {
    const hosted = await open.createChannel('hosted');
    const { token } = await open.createTemplate({ text: 'hi' }, [
      { channelId: hosted.id, contentType: 'text' },
    ]);
    expect((await open.sendV2({ token, title: 'only here' })).status).toBe(200);
    const counted = await open.waitFor(async () => {
      const s = await scrape(open);
      return s.get('herald_delivery_attempts_total{channel_kind="hosted",status="sent"}') === 1
        ? s
        : null;
    });
    expect(counted.get('herald_sends_accepted_total{api="v2",origin="request"}')).toBe(1);
    const other = await scrape(guarded, TOKEN);
    expect(other.get('herald_sends_accepted_total{api="v2",origin="request"}') ?? 0).toBe(0);
    expect(other.has('herald_delivery_attempts_total{channel_kind="hosted",status="sent"}')).toBe(
      false,
    );
  });
});
