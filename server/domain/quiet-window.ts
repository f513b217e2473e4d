/**
 * Quiet-hours windows (issue 46 §1): wall-clock times in an IANA zone, on some weekdays, and
 * the one question the pipeline asks of them: "is this instant inside a window, and when does
 * it end?". Pure: no clock, no database; the zone arithmetic is Intl's.
 *
 * - A window starts on each of its `weekdays` (0 Sunday … 6 Saturday, the zone's own calendar)
 *   at `start` and ends at the next `end`: when `end` is not after `start` it is the next day's
 *   (22:00–07:00 wraps past midnight; 00:00–00:00 is the whole day).
 * - A wall-clock time the zone skips (a spring-forward gap, Europe/Berlin 02:30 on the last
 *   Sunday of March) means the first instant after the gap (03:00 CEST).
 * - A wall-clock time the zone repeats (a fall-back, Berlin 02:30 on the last Sunday of
 *   October) means its first occurrence (02:30 CEST, before the clocks go back), for a start
 *   and for an end alike: a window ending at 02:30 that night ends an hour before the second
 *   02:30.
 * - Windows that meet or overlap (every day 00:00–00:00, or Friday 18:00–00:00 then Saturday
 *   00:00–09:00) are one: the answer is the end of the last of them.
 */

export interface QuietWindow {
  /** A canonical IANA zone name (canonicalTimeZone). */
  timezone: string;
  /** 0 Sunday … 6 Saturday: the days a window starts on. */
  weekdays: readonly number[];
  /** "HH:MM", 00:00 … 23:59. */
  start: string;
  end: string;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
/** A chain of meeting windows is at most a week long: seven days, and one more to close it. */
const MAX_CHAIN = 8;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The zone's wall clock at `instant`, read as if it were UTC (epoch ms). */
function wallClockOf(zone: string, instant: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatterOf(zone).formatToParts(new Date(instant))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day!,
    parts.hour!,
    parts.minute!,
    parts.second!,
  );
}

/** The zone's offset from UTC at `instant`, in ms (whole seconds). */
function offsetAt(zone: string, instant: number): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallClockOf(zone, whole) - whole;
}

/**
 * The instant the zone's clocks show `wall` (a wall-clock time as UTC epoch ms): its first
 * occurrence when it occurs twice, the end of the gap when the zone skips it.
 */
export function instantOfWallClock(zone: string, wall: number): number {
  // Any offset in force within half a day of the time is a candidate; zones change offset at
  // most once in that span.
  const offsets = new Set([
    offsetAt(zone, wall - DAY / 2),
    offsetAt(zone, wall),
    offsetAt(zone, wall + DAY / 2),
  ]);
  const valid = [...offsets]
    .map((o) => wall - o)
    .filter((instant) => offsetAt(zone, instant) === wall - instant);
  if (valid.length > 0) return Math.min(...valid);
  // Skipped: the clocks jumped over it. The gap ends at the transition, the first instant
  // whose offset is the later one; it lies between the two readings of the time.
  const after = offsetAt(zone, wall + DAY / 2);
  let lo = Math.floor((wall - after) / MINUTE);
  let hi = Math.ceil((wall - offsetAt(zone, wall - DAY / 2)) / MINUTE);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(zone, mid * MINUTE) === after) hi = mid;
    else lo = mid + 1;
  }
  return lo * MINUTE;
}

/** "HH:MM" as minutes after midnight, or null when it is not a time of day. */
export function minutesOf(time: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(time);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** The windows that start on the zone's calendar day `day` (UTC midnight of that date). */
function windowOfDay(w: QuietWindow, day: number): { from: number; to: number } | null {
  if (!w.weekdays.includes(new Date(day).getUTCDay())) return null;
  const start = minutesOf(w.start);
  const end = minutesOf(w.end);
  if (start === null || end === null) return null;
  const endDay = end > start ? day : day + DAY;
  return {
    from: instantOfWallClock(w.timezone, day + start * MINUTE),
    to: instantOfWallClock(w.timezone, endDay + end * MINUTE),
  };
}

/** A window containing `at` (from ≤ at < to), looking at windows that started up to 2 days ago. */
function windowAt(w: QuietWindow, at: number): { from: number; to: number } | null {
  const today = Math.floor(wallClockOf(w.timezone, at) / DAY) * DAY;
  for (const day of [today, today - DAY, today - 2 * DAY]) {
    const win = windowOfDay(w, day);
    if (win && win.from <= at && at < win.to) return win;
  }
  return null;
}

/**
 * When the quiet hours around `at` end (epoch ms), or null when `at` is outside every window.
 * Meeting windows are followed to the end of the last.
 */
export function quietUntil(w: QuietWindow, at: number): number | null {
  const first = windowAt(w, at);
  if (!first) return null;
  let until = first.to;
  for (let i = 0; i < MAX_CHAIN; i += 1) {
    const next = windowAt(w, until);
    if (!next || next.to <= until) break;
    until = next.to;
  }
  return until;
}

/** The next instant after `at` a window starts, within a week, or null (no weekdays). */
export function nextQuietStart(w: QuietWindow, at: number): number | null {
  const today = Math.floor(wallClockOf(w.timezone, at) / DAY) * DAY;
  for (let d = 0; d <= 8; d += 1) {
    const win = windowOfDay(w, today + d * DAY);
    if (win && win.from > at) return win.from;
  }
  return null;
}
