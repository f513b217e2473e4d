import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  createScheduleFromImport,
  translateMessageNestCron,
  type ImportedSchedule,
} from '../../server/features/schedules/schedule-import';
import { startTestHerald, type TestHerald } from '../helpers/herald';
import { ManualClock } from '../helpers/manual-clock';

describe('schedules from a Message Nest import', () => {
  let herald: TestHerald;
  let taskId: number;
  const clock = new ManualClock(Date.parse('2026-11-22T08:00:00.000Z'));

  beforeAll(async () => {
    herald = await startTestHerald({ clock });
    taskId = (await herald.createTask('imported task', [])).task.id;
  });
  afterAll(() => herald.close(true));

  const base = (): ImportedSchedule => ({
    name: 'morning report',
    taskId,
    cron: '0 9 * * *',
    timezone: 'Asia/Shanghai',
    title: 'Good morning',
    content: 'The report is ready',
    url: '',
    enabled: true,
  });

  it('creates a schedule as Message Nest ran it, catching up nothing by default', async () => {
    const result = await createScheduleFromImport(herald.server.ctx.schedules, base());
    expect(result).toMatchObject({ created: true, notes: [] });
    if (!result.created) return;
    expect(await herald.console.ok('GET', `/schedules/${result.id}`)).toMatchObject({
      name: 'morning report',
      taskId,
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
    const zoned = await createScheduleFromImport(herald.server.ctx.schedules, {
      ...base(),
      cron: 'CRON_TZ=Europe/Berlin @daily',
    });
    if (!zoned.created) throw new Error(zoned.reason);
    expect(await herald.console.ok('GET', `/schedules/${zoned.id}`)).toMatchObject({
      cron: '@daily',
      timezone: 'Europe/Berlin',
    });
    const every = await createScheduleFromImport(herald.server.ctx.schedules, {
      ...base(),
      cron: '@every 15m',
    });
    expect(every).toMatchObject({ created: true, notes: [expect.stringMatching(/\*\/15/)] });
  });

  it('brings a 6-field expression (saved, never run by Message Nest) over disabled', async () => {
    const result = await createScheduleFromImport(herald.server.ctx.schedules, {
      ...base(),
      cron: '0 0 9 * * *',
    });
    expect(result).toMatchObject({ created: true, notes: [expect.stringMatching(/disabled/)] });
    if (result.created)
      expect((await herald.console.ok('GET', `/schedules/${result.id}`)).enabled).toBe(false);
  });

  it('reports what it cannot bring over, with the reason, and creates nothing', async () => {
    const before = (await herald.console.ok('GET', '/schedules')).total;
    const cases: Array<[Partial<ImportedSchedule>, RegExp]> = [
      [{ taskId: null }, /task no longer exists/],
      [{ cron: '@every 7m' }, /no cron expression can say/],
      [{ cron: '0 0 9 * * * 2027' }, /7 fields/],
      [{ cron: '99 * * * *' }, /^cron: /],
      [{ timezone: 'Not/AZone' }, /^timezone: /],
      [{ taskId: 999_999 }, /^taskId: task 999999 does not exist/],
    ];
    for (const [fields, reason] of cases) {
      const result = await createScheduleFromImport(herald.server.ctx.schedules, {
        ...base(),
        ...fields,
      });
      expect(result.created, JSON.stringify(fields)).toBe(false);
      if (!result.created) expect(result.reason).toMatch(reason);
    }
    expect((await herald.console.ok('GET', '/schedules')).total).toBe(before);
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
