import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { openEventStream, type EventStream } from '../../helpers/event-stream';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';

/**
 * The console's live stream announces a schedule's run (`event: schedule`), so an open
 * Schedules page shows its new next run and last send without a reload: read over a real
 * /api/console/events stream, for the admin and for a viewer.
 */
describe('schedule events on the console stream', () => {
  let clock: ManualClock;
  let herald: TestHerald;
  let peer: HttpPeer;
  let taskId: number;
  const streams: EventStream[] = [];

  beforeEach(async () => {
    clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
    peer = await startHttpPeer();
    herald = await startTestHerald({ clock });
    const hook = await herald.createChannel('webhook', { url: `${peer.url}/hook` });
    taskId = (await herald.createTask('reports', [{ channelId: hook.id, contentType: 'text' }]))
      .task.id;
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    await herald.close(true);
    await peer.close();
  });

  const open = async (client = herald.console) => {
    const stream = await openEventStream(herald.url, client);
    streams.push(stream);
    return stream;
  };
  const scheduleEvents = (stream: EventStream) => stream.events<{ id: number }>('schedule');
  const until = (stream: EventStream, n: number) =>
    stream.until(() => scheduleEvents(stream).length >= n);

  it('announces a run when the scheduler fires it, once the new times are stored', async () => {
    const s = await herald.console.ok('POST', '/schedules', {
      name: 'nine',
      taskId,
      cron: '0 9 * * *',
      timezone: 'UTC',
      title: 'Nine o clock',
      text: 'All good',
    });
    const { client: viewer } = await herald.signedInAs('viewer');
    const admin = await open();
    const watching = await open(viewer);

    // Not due yet: nothing runs, nothing is announced.
    clock.set(Date.parse('2026-11-22T08:59:59.000Z'));
    expect(await herald.server.scheduler.tick()).toBe(0);
    clock.set(Date.parse('2026-11-22T09:00:00.000Z'));
    expect(await herald.server.scheduler.tick()).toBe(1);

    for (const stream of [admin, watching]) {
      await until(stream, 1);
      expect(scheduleEvents(stream)).toEqual([{ id: s.id }]);
    }
    // What the page reads on the event already holds the run.
    expect(await herald.console.ok('GET', `/schedules/${s.id}`)).toMatchObject({
      lastRunAt: '2026-11-22T09:00:00.000Z',
      nextRunAt: '2026-11-23T09:00:00.000Z',
      lastSendId: expect.any(Number),
      lastError: null,
    });
  });

  it('announces Run now, a refused run, a skipped catch-up and an edit', async () => {
    const s = await herald.console.ok('POST', '/schedules', {
      name: 'by hand',
      taskId,
      cron: '0 0 1 1 *',
      timezone: 'UTC',
      title: 'By hand',
      text: 'All good',
    });
    const empty = await herald.createTask('no instances', []);
    const refused = await herald.console.ok('POST', '/schedules', {
      name: 'refused',
      taskId: empty.task.id,
      cron: '0 0 1 1 *',
      timezone: 'UTC',
      title: 'Nobody',
      text: 'x',
    });
    const stream = await open();

    await herald.console.ok('POST', `/schedules/${s.id}/run`);
    await until(stream, 1);
    expect((await herald.console.post(`/schedules/${refused.id}/run`)).status).toBe(400);
    await until(stream, 2);
    await herald.console.ok('PATCH', `/schedules/${s.id}`, { title: 'Renamed' });
    await until(stream, 3);
    expect(scheduleEvents(stream)).toEqual([{ id: s.id }, { id: refused.id }, { id: s.id }]);

    // Due long ago with catch-up "skip": the run is skipped, and that changes the page too.
    const skipped = await herald.console.ok('POST', '/schedules', {
      name: 'skipped',
      taskId,
      runAt: '2026-11-22T08:30:00.000Z',
      catchUp: 'skip',
      title: 'Late',
      text: 'x',
    });
    await until(stream, 4);
    clock.set(Date.parse('2026-11-22T09:00:00.000Z'));
    expect(await herald.server.scheduler.tick()).toBe(1);
    await until(stream, 5);
    expect(scheduleEvents(stream).slice(3)).toEqual([{ id: skipped.id }, { id: skipped.id }]);
    expect(await herald.console.ok('GET', `/schedules/${skipped.id}`)).toMatchObject({
      enabled: false,
      lastError: expect.stringMatching(/^skipped the run due at/),
    });
  });
});
