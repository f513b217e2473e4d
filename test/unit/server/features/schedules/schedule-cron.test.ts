import { describe, expect, it } from 'vitest';

import {
  CronError,
  canonicalTimeZone,
  checkCron,
  checkTimeZone,
  compileCron,
  nextCronRuns,
} from '../../../../../server/features/schedules/cron';
import {
  nextRunAfter,
  plannedNextRun,
  type Timing,
} from '../../../../../server/features/schedules/due-times';

const at = (iso: string) => Date.parse(iso);
const runs = (cron: string, zone: string, from: string, n = 5) =>
  nextCronRuns(cron, zone, at(from), n).map((t) => new Date(t).toISOString());

describe('cron expressions', () => {
  it('reads five fields in the given time zone', () => {
    expect(runs('0 9 * * *', 'Asia/Shanghai', '2026-11-22T00:00:00Z', 2)).toEqual([
      '2026-11-22T01:00:00.000Z',
      '2026-11-23T01:00:00.000Z',
    ]);
    expect(runs('0 9 * * *', 'America/New_York', '2026-11-22T00:00:00Z', 1)).toEqual([
      '2026-11-22T14:00:00.000Z',
    ]);
  });

  it('answers times strictly after the given one', () => {
    expect(runs('0 9 * * *', 'UTC', '2026-11-22T09:00:00Z', 1)).toEqual([
      '2026-11-23T09:00:00.000Z',
    ]);
  });

  it('knows the shortcuts Message Nest accepts, in any case', () => {
    const from = '2026-11-22T10:30:00Z'; // a Sunday
    expect(runs('@hourly', 'UTC', from, 1)).toEqual(['2026-11-22T11:00:00.000Z']);
    expect(runs('@daily', 'UTC', from, 1)).toEqual(['2026-11-23T00:00:00.000Z']);
    expect(runs('@midnight', 'UTC', from, 1)).toEqual(['2026-11-23T00:00:00.000Z']);
    expect(runs('@WEEKLY', 'UTC', from, 1)).toEqual(['2026-11-29T00:00:00.000Z']);
    expect(runs('@monthly', 'UTC', from, 1)).toEqual(['2026-12-01T00:00:00.000Z']);
    expect(runs('@yearly', 'UTC', from, 1)).toEqual(['2027-01-01T00:00:00.000Z']);
    expect(runs('@annually', 'UTC', from, 1)).toEqual(['2027-01-01T00:00:00.000Z']);
  });

  it('takes an optional leading seconds field', () => {
    expect(runs('*/20 * * * * *', 'UTC', '2026-11-22T10:00:00Z', 3)).toEqual([
      '2026-11-22T10:00:20.000Z',
      '2026-11-22T10:00:40.000Z',
      '2026-11-22T10:01:00.000Z',
    ]);
  });

  it('reads day-of-month and day-of-week as either, like robfig/cron', () => {
    // The 1st of the month, or any Monday.
    expect(runs('0 0 1 * 1', 'UTC', '2026-11-24T00:00:00Z', 3)).toEqual([
      '2026-11-30T00:00:00.000Z',
      '2026-12-01T00:00:00.000Z',
      '2026-12-07T00:00:00.000Z',
    ]);
  });

  it('reads "5/15" as from 5 every 15, as Message Nest expressions use it', () => {
    expect(runs('5/15 * * * *', 'UTC', '2026-11-22T10:00:00Z', 4)).toEqual([
      '2026-11-22T10:05:00.000Z',
      '2026-11-22T10:20:00.000Z',
      '2026-11-22T10:35:00.000Z',
      '2026-11-22T10:50:00.000Z',
    ]);
  });

  it('runs a fixed time in the skipped hour once, just after the gap (spring forward)', () => {
    // Berlin skips 02:00–03:00 on 29 March 2026.
    expect(runs('30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:00:00.000Z', // 03:00 CEST
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('runs a fixed time in the repeated hour once (fall back)', () => {
    // Berlin lives 02:00–03:00 twice on 25 October 2026.
    expect(runs('30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, the first of the two
      '2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
  });

  it('keeps a daily local time across the change (09:00 stays 09:00 local)', () => {
    expect(runs('0 9 * * *', 'America/New_York', '2026-10-31T00:00:00Z', 3)).toEqual([
      '2026-10-31T13:00:00.000Z', // EDT
      '2026-11-01T14:00:00.000Z', // EST from 1 November
      '2026-11-02T14:00:00.000Z',
    ]);
  });

  it('refuses what it cannot read with a message that says what to change', () => {
    const problem = (cron: string) => {
      try {
        compileCron(cron, 'UTC');
        return null;
      } catch (err) {
        expect(err).toBeInstanceOf(CronError);
        return (err as Error).message;
      }
    };
    expect(problem('')).toMatch(/is empty/);
    expect(problem('* * *')).toMatch(/has 3 fields; write 5/);
    expect(problem('0 0 * * * * 2027')).toMatch(/has 7 fields/);
    expect(problem('61 * * * *')).toMatch(/minute: 61/);
    expect(problem('0 24 * * *')).toMatch(/hour: 24/);
    expect(problem('x * * * *')).toMatch(/the minute field \(x\) contains illegal characters/);
    expect(problem('@every 1h')).toMatch(/@every is not supported; .*"\*\/5 \* \* \* \*"/);
    expect(problem('@reboot')).toMatch(/is not a shortcut; use one of @yearly/);
    expect(problem('0 9 * * 1-5')).toBeNull();
  });

  it('refuses an expression that never comes due', () => {
    expect(() => checkCron('0 0 30 2 *', 'UTC', at('2026-01-01T00:00:00Z'))).toThrow(
      /never comes due/,
    );
    expect(checkCron('  0   9 * *  1-5 ', 'UTC', at('2026-01-01T00:00:00Z'))).toBe('0 9 * * 1-5');
  });
});

describe('time zones', () => {
  it('answers the canonical IANA name, or refuses', () => {
    expect(canonicalTimeZone('asia/shanghai')).toBe('Asia/Shanghai');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Mars/Olympus')).toBeNull();
    expect(canonicalTimeZone('+08:00')).toBeNull();
    expect(canonicalTimeZone('')).toBeNull();
    expect(() => checkTimeZone('Nowhere')).toThrow(/"Nowhere" is not a known IANA time zone/);
  });
});

describe('due times', () => {
  const timing = (t: Partial<Timing>): Timing => ({
    enabled: true,
    cron: null,
    runAt: null,
    timezone: 'UTC',
    ...t,
  });
  const now = at('2026-11-22T08:00:00Z');

  it('plans the next cron time, the one-time run, or nothing when disabled', () => {
    expect(plannedNextRun(timing({ cron: '0 9 * * *' }), now)).toBe(at('2026-11-22T09:00:00Z'));
    expect(plannedNextRun(timing({ runAt: at('2026-12-24T18:00:00Z') }), now)).toBe(
      at('2026-12-24T18:00:00Z'),
    );
    expect(plannedNextRun(timing({ cron: '0 9 * * *', enabled: false }), now)).toBeNull();
  });

  it('after a run: the first cron time after now (missed ones are not queued up), none for once', () => {
    // Due at 09:00 yesterday, seen at 08:00 today: the next is today's 09:00, not yesterday's.
    expect(nextRunAfter(timing({ cron: '0 9 * * *' }), now)).toBe(at('2026-11-22T09:00:00Z'));
    expect(nextRunAfter(timing({ runAt: at('2026-11-22T07:00:00Z') }), now)).toBeNull();
  });
});
