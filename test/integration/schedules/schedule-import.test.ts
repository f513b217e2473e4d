import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { translateMessageNestCron } from '../../../server/features/import/message-nest/cron-spec';
import {
  importSnapshot,
  type ImportDeps,
} from '../../../server/features/import/message-nest/importer';
import type { Snapshot } from '../../../server/features/import/message-nest/snapshot';
import type { Row } from '../../../server/features/import/message-nest/values';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { ManualClock } from '../../helpers/manual-clock';

/* eslint-disable @typescript-eslint/no-explicit-any -- console answers are loose JSON */

describe('schedules from a Message Nest import', () => {
  let herald: TestHerald;
  const clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));
  let cronIds = 0;

  beforeAll(async () => {
    herald = await startTestHerald({ clock });
  });
  afterAll(() => herald.close(true));

  const deps = (): ImportDeps => {
    const ctx = herald.server.ctx;
    return {
      writeLock: ctx.writeLock,
      registry: ctx.registry,
      channels: ctx.channels,
      schedules: ctx.schedules,
      settings: ctx.settings,
      now: () => new Date(clock.now()),
    };
  };

  /** A Message Nest cron message of the task TKcron000001 (imported with it, or before). */
  const cronMessage = (fields: Partial<Row> = {}): Row => ({
    id: `CM${String(++cronIds).padStart(10, '0')}`,
    name: 'morning report',
    task_id: 'TKcron000001',
    cron: 'CRON_TZ=Asia/Shanghai 0 9 * * *',
    title: 'Good morning',
    content: 'The report is ready',
    url: '',
    enable: 1,
    ...fields,
  });

  /** Imports the task and these cron messages, as a Message Nest database holding them would. */
  const importCron = (messages: Row[], dryRun = false) => {
    const snapshot: Snapshot = {
      description: 'cron messages',
      schema: {
        prefix: 'message_',
        tables: { send_tasks: 'message_send_tasks', cron_messages: 'message_cron_messages' },
        columns: {},
      },
      rows: {
        send_tasks: [{ id: 'TKcron000001', name: 'reports' }],
        cron_messages: messages,
      },
    };
    return importSnapshot(snapshot, deps(), { dryRun, withLogs: false });
  };

  const scheduleOf = async (name: string) => {
    const { items } = await herald.console.ok('GET', `/schedules?name=${encodeURIComponent(name)}`);
    expect(items).toHaveLength(1);
    return items[0];
  };

  it('creates a schedule as Message Nest ran it, in the transaction that created its task', async () => {
    const report = await importCron([cronMessage({ name: 'morning report' })]);
    expect(report.counts.schedules).toEqual({ created: 1, alreadyImported: 0, skipped: 0 });
    const task = (await herald.console.ok('GET', '/tasks')).items.find(
      (t: any) => t.legacyId === 'TKcron000001',
    );
    expect(await scheduleOf('morning report')).toMatchObject({
      taskId: task.id,
      cron: '0 9 * * *',
      timezone: 'Asia/Shanghai',
      title: 'Good morning',
      text: 'The report is ready',
      url: null,
      enabled: true,
      catchUp: 'skip',
      nextRunAt: '2026-11-23T01:00:00.000Z',
    });
  });

  it('takes the zone of a CRON_TZ prefix and turns @every into a cron where it fits', async () => {
    const report = await importCron([
      cronMessage({ name: 'berlin daily', cron: 'CRON_TZ=Europe/Berlin @daily' }),
      cronMessage({ name: 'every quarter', cron: '@every 15m' }),
    ]);
    expect(report.counts.schedules.created).toBe(2);
    expect(await scheduleOf('berlin daily')).toMatchObject({
      cron: '@daily',
      timezone: 'Europe/Berlin',
    });
    expect((await scheduleOf('every quarter')).cron).toBe('*/15 * * * *');
    expect(report.notes.join('\n')).toMatch(/"every quarter" .*"@every 15m" became "\*\/15/);
  });

  it('brings a 6-field expression (saved, never run by Message Nest) over disabled', async () => {
    const report = await importCron([cronMessage({ name: 'six fields', cron: '0 0 9 * * *' })]);
    expect(report.counts.schedules.created).toBe(1);
    expect((await scheduleOf('six fields')).enabled).toBe(false);
    expect(report.notes.join('\n')).toMatch(/"six fields" .*imported disabled/);
  });

  it('reports what it cannot bring over, with the reason, and creates nothing of it', async () => {
    const before = (await herald.console.ok('GET', '/schedules')).total;
    const cases: Array<[Partial<Row>, RegExp]> = [
      [{ task_id: 'TKgone000001' }, /its task TKgone000001 no longer exists/],
      [{ cron: '@every 7m' }, /no cron expression can say/],
      [{ cron: '0 0 9 * * * 2027' }, /7 fields/],
      [{ cron: '99 * * * *' }, /^cron: /],
      [{ cron: 'CRON_TZ=Not/AZone 0 9 * * *' }, /^timezone: /],
      // The console's rule: a task schedule sends content of its own.
      [{ content: '' }, /^text, html, markdown: /],
    ];
    const report = await importCron(cases.map(([fields]) => cronMessage(fields)));
    expect(report.counts.schedules).toEqual({
      created: 0,
      alreadyImported: 0,
      skipped: cases.length,
    });
    cases.forEach(([fields, reason], i) =>
      expect(report.skipped[i].reason, JSON.stringify(fields)).toMatch(reason),
    );
    expect((await herald.console.ok('GET', '/schedules')).total).toBe(before);
  });

  it('tells the scheduler and the settings relay once the import committed, never for a dry run', async () => {
    const { events, settings } = herald.server.ctx;
    await herald.console.ok('PUT', '/settings', { sendApi: { httpStatus: 'code' } });
    const heard: string[] = [];
    const onSchedule = ({ id }: { id: number }) => heard.push(`schedule ${id}`);
    const onConfiguration = ({ what }: { what: string }) => heard.push(`configuration ${what}`);
    events.on('schedule', onSchedule);
    events.on('configuration', onConfiguration);
    try {
      const dry = await importCron([cronMessage({ name: 'dry' })], true);
      expect(dry.counts.schedules.created).toBe(1);
      expect(dry.notes.join('\n')).toMatch(/Would set sendApi\.httpStatus/);
      expect(heard).toEqual([]);
      expect(settings.get().sendApi.httpStatus).toBe('code');

      await importCron([cronMessage({ name: 'wet' })]);
      const wet = await scheduleOf('wet');
      expect(heard).toEqual([`schedule ${wet.id}`, 'configuration settings']);
      expect(settings.get().sendApi.httpStatus).toBe('always200');
    } finally {
      events.off('schedule', onSchedule);
      events.off('configuration', onConfiguration);
    }
  });

  it('translates @every only when the interval divides the clock', () => {
    const cron = (spec: string) => {
      const t = translateMessageNestCron(spec);
      return 'cron' in t ? t.cron : null;
    };
    expect(cron('@every 30s')).toBe('*/30 * * * * *');
    expect(cron('@every 1m')).toBe('*/1 * * * *');
    expect(cron('@every 2h')).toBe('0 */2 * * *');
    expect(cron('@every 24h')).toBe('0 0 * * *');
    expect(cron('@every 1h30m')).toBeNull();
    expect(cron('@every 45s')).toBeNull();
    expect(cron('TZ=UTC 5 4 * * *')).toBe('5 4 * * *');
  });
});
