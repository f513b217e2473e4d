import { describe, expect, it } from 'vitest';

import { decideQuietHours, type QuietRuleLike } from '../../../../server/domain/quiet-decision';
import {
  instantOfWallClock,
  nextQuietStart,
  quietUntil,
  type QuietWindow,
} from '../../../../server/domain/quiet-window';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6];

const berlinNight: QuietWindow = {
  timezone: 'Europe/Berlin',
  weekdays: ALL_DAYS,
  start: '22:00',
  end: '07:00',
};

describe('quietUntil', () => {
  it('holds inside a window that wraps past midnight, until the next morning', () => {
    // 23:30 CET on Tuesday 2026-01-13: the window ends at 07:00 CET on Wednesday.
    expect(iso(quietUntil(berlinNight, at('2026-01-13T22:30:00Z')))).toBe(
      '2026-01-14T06:00:00.000Z',
    );
    // 03:00 CET, after midnight: the window that began the evening before.
    expect(iso(quietUntil(berlinNight, at('2026-01-14T02:00:00Z')))).toBe(
      '2026-01-14T06:00:00.000Z',
    );
  });

  it('is outside the window at its end and before its start', () => {
    expect(quietUntil(berlinNight, at('2026-01-14T06:00:00Z'))).toBeNull();
    expect(quietUntil(berlinNight, at('2026-01-14T20:59:59Z'))).toBeNull();
    expect(quietUntil(berlinNight, at('2026-01-14T21:00:00Z'))).not.toBeNull();
  });

  it('follows the weekday the window starts on, in the zone', () => {
    // Friday 18:00 to 09:00, started on Fridays only.
    const friday: QuietWindow = {
      timezone: 'America/New_York',
      weekdays: [5],
      start: '18:00',
      end: '09:00',
    };
    // Friday 2026-01-16 19:00 EST: until Saturday 09:00 EST.
    expect(iso(quietUntil(friday, at('2026-01-17T00:00:00Z')))).toBe('2026-01-17T14:00:00.000Z');
    // Saturday 2026-01-17 03:00 EST: still Friday's window.
    expect(iso(quietUntil(friday, at('2026-01-17T08:00:00Z')))).toBe('2026-01-17T14:00:00.000Z');
    // Thursday 19:00 EST: not a window day.
    expect(quietUntil(friday, at('2026-01-16T00:00:00Z'))).toBeNull();
    // Saturday 19:00 EST: Saturday is not a start day.
    expect(quietUntil(friday, at('2026-01-18T00:00:00Z'))).toBeNull();
  });

  it('joins windows that meet into one (a weekend off)', () => {
    const weekend: QuietWindow = {
      timezone: 'UTC',
      weekdays: [6, 0],
      start: '00:00',
      end: '00:00',
    };
    // Saturday 2026-01-17 10:00 UTC: quiet until Monday 00:00.
    expect(iso(quietUntil(weekend, at('2026-01-17T10:00:00Z')))).toBe('2026-01-19T00:00:00.000Z');
  });

  it('keeps wall-clock time across the spring-forward night in Berlin (last Sunday of March)', () => {
    // 2026-03-29: 02:00 CET becomes 03:00 CEST. 22:00 CET on the 28th (21:00Z) to 07:00 CEST (05:00Z).
    expect(iso(quietUntil(berlinNight, at('2026-03-28T23:00:00Z')))).toBe(
      '2026-03-29T05:00:00.000Z',
    );
    // Eight hours, not nine: the night lost an hour.
    expect(at('2026-03-29T05:00:00Z') - at('2026-03-28T21:00:00Z')).toBe(8 * 3_600_000);
  });

  it('starts a window set in the skipped hour at the first instant after the gap', () => {
    const w: QuietWindow = {
      timezone: 'Europe/Berlin',
      weekdays: ALL_DAYS,
      start: '02:30',
      end: '06:00',
    };
    // 2026-03-29 02:30 does not exist in Berlin: the window starts at 03:00 CEST (01:00Z).
    expect(iso(instantOfWallClock('Europe/Berlin', at('2026-03-29T02:30:00Z')))).toBe(
      '2026-03-29T01:00:00.000Z',
    );
    expect(quietUntil(w, at('2026-03-29T00:59:00Z'))).toBeNull();
    expect(iso(quietUntil(w, at('2026-03-29T01:00:00Z')))).toBe('2026-03-29T04:00:00.000Z');
    expect(iso(nextQuietStart(w, at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T01:00:00.000Z');
  });

  it('reads a repeated hour (Berlin, last Sunday of October) as its first occurrence', () => {
    // 2026-10-25: 03:00 CEST becomes 02:00 CET, so 02:30 happens at 00:30Z and at 01:30Z.
    expect(iso(instantOfWallClock('Europe/Berlin', at('2026-10-25T02:30:00Z')))).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    // The night from 22:00 CEST (20:00Z) to 07:00 CET (06:00Z) is ten hours long.
    expect(iso(quietUntil(berlinNight, at('2026-10-25T01:45:00Z')))).toBe(
      '2026-10-25T06:00:00.000Z',
    );
    const endsInRepeat: QuietWindow = { ...berlinNight, end: '02:30' };
    expect(iso(quietUntil(endsInRepeat, at('2026-10-25T00:00:00Z')))).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    // The second 02:00–03:00 is after the end.
    expect(quietUntil(endsInRepeat, at('2026-10-25T01:10:00Z'))).toBeNull();
  });

  it('handles New York’s changes (second Sunday of March, first Sunday of November)', () => {
    const ny: QuietWindow = {
      timezone: 'America/New_York',
      weekdays: ALL_DAYS,
      start: '23:00',
      end: '06:00',
    };
    // 2026-03-08: 02:00 EST becomes 03:00 EDT. 23:00 EST (04:00Z) to 06:00 EDT (10:00Z).
    expect(iso(quietUntil(ny, at('2026-03-08T05:00:00Z')))).toBe('2026-03-08T10:00:00.000Z');
    // 2026-11-01: 02:00 EDT becomes 01:00 EST. 23:00 EDT (03:00Z) to 06:00 EST (11:00Z).
    expect(iso(quietUntil(ny, at('2026-11-01T06:30:00Z')))).toBe('2026-11-01T11:00:00.000Z');
  });

  it('is never quiet without weekdays', () => {
    expect(quietUntil({ ...berlinNight, weekdays: [] }, at('2026-01-13T23:30:00Z'))).toBeNull();
    expect(nextQuietStart({ ...berlinNight, weekdays: [] }, at('2026-01-13T23:30:00Z'))).toBeNull();
  });
});

describe('decideQuietHours', () => {
  const rule = (over: Partial<QuietRuleLike>): QuietRuleLike => ({
    id: 1,
    action: 'hold',
    bypassPriority: 5,
    enabled: true,
    ...berlinNight,
    ...over,
  });
  const night = at('2026-01-13T23:30:00Z');
  const day = at('2026-01-13T12:00:00Z');

  it('answers “held until the window’s end” for a message sent now inside it', () => {
    expect(decideQuietHours([[rule({})]], night, 3)).toEqual({
      ruleId: 1,
      action: 'hold',
      until: at('2026-01-14T06:00:00Z'),
    });
    expect(decideQuietHours([[rule({})]], day, 3)).toBeNull();
  });

  it('lets a priority at or above the rule’s through, and ignores a disabled rule', () => {
    expect(decideQuietHours([[rule({})]], night, 5)).toBeNull();
    expect(decideQuietHours([[rule({ bypassPriority: 4 })]], night, 4)).toBeNull();
    expect(decideQuietHours([[rule({ bypassPriority: 4 })]], night, 3)).not.toBeNull();
    expect(decideQuietHours([[rule({ enabled: false })]], night, 1)).toBeNull();
  });

  it('lets the most specific owner decide, and the strictest of its rules', () => {
    const instance = [rule({ id: 7, action: 'soften' })];
    const channel = [rule({ id: 8, action: 'drop' })];
    expect(decideQuietHours([instance, channel], night, 3)?.ruleId).toBe(7);
    expect(decideQuietHours([[], channel], night, 3)?.ruleId).toBe(8);
    expect(
      decideQuietHours(
        [[rule({ id: 2, action: 'soften' }), rule({ id: 3, action: 'hold' })]],
        night,
        3,
      )?.ruleId,
    ).toBe(3);
  });
});
