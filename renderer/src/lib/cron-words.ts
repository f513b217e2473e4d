/**
 * A cron expression in words, for the schedules list: "Weekdays 09:00", "工作日 09:00". It
 * reads the expressions the server accepts (five fields, an optional leading seconds field, the
 * @yearly … @hourly shortcuts) and words the common shapes: a fixed time on every day, on
 * weekdays or weekends, on some days of the week, on some days of the month or of the year, and
 * intervals of minutes or hours. Anything else answers null and the caller shows the expression
 * itself: a wrong sentence would be worse than none. Names of days and months (MON, JAN) are
 * read as croner reads them. The words live here rather than in the dictionaries because they
 * are put together by rules that differ between the two languages.
 */

export type CronLanguage = 'en' | 'zh-CN';

const SHORTCUTS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MONTH_NAMES = [
  'jan',
  'feb',
  'mar',
  'apr',
  'may',
  'jun',
  'jul',
  'aug',
  'sep',
  'oct',
  'nov',
  'dec',
];

/** One field, read: every value (`*`), a step over the whole range (`*\/5`), or a set of values. */
type Field = { kind: 'any' } | { kind: 'step'; step: number } | { kind: 'set'; values: number[] };

/** Reads one field within [min, max]; names are an index offset by `nameBase`. Null if unread. */
function readField(
  text: string,
  min: number,
  max: number,
  names: string[] = [],
  nameBase = 0,
): Field | null {
  if (text === '*' || text === '?') return { kind: 'any' };
  const step = /^\*\/(\d+)$/.exec(text);
  if (step) {
    const n = Number(step[1]);
    if (n < 1 || n > max) return null;
    return n === 1 ? { kind: 'any' } : { kind: 'step', step: n };
  }
  const value = (part: string): number | null => {
    const named = names.indexOf(part.toLowerCase());
    if (named >= 0) return named + nameBase;
    if (!/^\d+$/.test(part)) return null;
    const n = Number(part);
    return n >= min && n <= max ? n : null;
  };
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const range = /^([^-/]+)-([^-/]+)$/.exec(part);
    if (range) {
      const from = value(range[1]);
      const to = value(range[2]);
      if (from === null || to === null || from > to) return null;
      for (let v = from; v <= to; v++) values.add(v);
      continue;
    }
    const single = value(part);
    if (single === null) return null;
    values.add(single);
  }
  return { kind: 'set', values: [...values].sort((a, b) => a - b) };
}

interface Parsed {
  minute: Field;
  hour: Field;
  dom: Field;
  month: Field;
  dow: Field;
}

function parse(expression: string): Parsed | null {
  let text = expression.trim().replace(/\s+/g, ' ');
  if (text.startsWith('@')) {
    const expanded = SHORTCUTS[text.toLowerCase()];
    if (!expanded) return null;
    text = expanded;
  }
  let parts = text.split(' ');
  if (parts.length === 6) {
    // Seconds other than "at second 0" are not worth a sentence of their own.
    if (parts[0] !== '0') return null;
    parts = parts.slice(1);
  }
  if (parts.length !== 5) return null;
  const minute = readField(parts[0], 0, 59);
  const hour = readField(parts[1], 0, 23);
  const dom = readField(parts[2], 1, 31);
  const month = readField(parts[3], 1, 12, MONTH_NAMES, 1);
  const dowRaw = readField(parts[4], 0, 7, DAY_NAMES);
  if (!minute || !hour || !dom || !month || !dowRaw) return null;
  // 7 is Sunday as well as 0.
  const dow: Field =
    dowRaw.kind === 'set'
      ? {
          kind: 'set',
          values: [...new Set(dowRaw.values.map((d) => d % 7))].sort((a, b) => a - b),
        }
      : dowRaw;
  if (dow.kind === 'set' && dow.values.length === 7)
    return { minute, hour, dom, month, dow: { kind: 'any' } };
  return { minute, hour, dom, month, dow };
}

/** Days, worded twice: leading a time ("Weekdays 09:00") and after an interval ("… on weekdays"). */
interface Days {
  lead: string;
  tail: string;
}

interface Words {
  list: (items: string[]) => string;
  weekdays: Days;
  weekends: Days;
  everyMinute: string;
  everyMinutes: (n: number) => string;
  hourlyAt: (minute: number) => string;
  everyHoursAt: (n: number, minute: number) => string;
  /** Times of day on some days ("" for every day). */
  at: (days: Days | null, times: string) => string;
  /** An interval on some days ("" for every day). */
  interval: (days: Days | null, when: string) => string;
  /** An interval within hours of the day: "every 5 minutes, between 09:00 and 17:59". */
  within: (when: string, from: number, to: number) => string;
  dayOfWeek: (days: number[]) => Days;
  dayOfMonth: (days: number[]) => Days;
  dayOfYear: (days: number[], months: number[]) => Days;
  inMonths: (months: number[]) => Days;
}

const pad = (n: number) => String(n).padStart(2, '0');
const time = (h: number, m: number) => `${pad(h)}:${pad(m)}`;
const isRun = (values: number[]) => values.every((v, i) => i === 0 || v === values[i - 1] + 1);

const englishList = (items: string[]) =>
  items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

const EN_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const EN_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const EN: Words = {
  list: englishList,
  weekdays: { lead: 'Weekdays', tail: 'on weekdays' },
  weekends: { lead: 'Weekends', tail: 'at weekends' },
  everyMinute: 'Every minute',
  everyMinutes: (n) => `Every ${n} minutes`,
  hourlyAt: (m) => `Every hour at :${pad(m)}`,
  everyHoursAt: (n, m) => `Every ${n} hours at :${pad(m)}`,
  // One word leads ("Weekdays 09:00"); a phrase takes "at" ("Monthly on day 1 at 09:00").
  at: (days, times) =>
    !days ? `Daily ${times}` : `${days.lead}${days.lead.includes(' ') ? ' at' : ''} ${times}`,
  interval: (days, when) => (!days ? when : `${when} ${days.tail}`),
  within: (when, from, to) => `${when}, between ${time(from, 0)} and ${time(to, 59)}`,
  dayOfWeek: (days) => {
    if (days.length > 2 && isRun(days)) {
      const span = `${EN_DAYS[days[0]]} to ${EN_DAYS[days[days.length - 1]]}`;
      return { lead: span, tail: `from ${span}` };
    }
    const names = englishList(days.map((d) => `${EN_DAYS[d]}s`));
    return { lead: names, tail: `on ${names}` };
  },
  dayOfMonth: (days) => {
    const list = englishList(days.map(String));
    return days.length === 1
      ? { lead: `Monthly on day ${list}`, tail: `on day ${list} of each month` }
      : { lead: `Monthly on days ${list}`, tail: `on days ${list} of each month` };
  },
  dayOfYear: (days, months) => {
    const dates = englishList(months.flatMap((m) => days.map((d) => `${d} ${EN_MONTHS[m - 1]}`)));
    return { lead: `Every year on ${dates}`, tail: `on ${dates}` };
  },
  inMonths: (months) => {
    const names = englishList(months.map((m) => EN_MONTHS[m - 1]));
    return { lead: `Daily in ${names}`, tail: `in ${names}` };
  },
};

const ZH_DAYS = ['周日', '周一', '周二', '周三', '周四', '周五', '周六'];

const ZH: Words = {
  list: (items) => items.join('、'),
  weekdays: { lead: '工作日', tail: '工作日' },
  weekends: { lead: '周末', tail: '周末' },
  everyMinute: '每分钟',
  everyMinutes: (n) => `每 ${n} 分钟`,
  hourlyAt: (m) => (m === 0 ? '每小时整点' : `每小时第 ${m} 分`),
  everyHoursAt: (n, m) => (m === 0 ? `每 ${n} 小时整点` : `每 ${n} 小时的第 ${m} 分`),
  at: (days, times) => `${days ? days.lead : '每天'} ${times}`,
  interval: (days, when) => (!days ? when : `${days.tail} ${when}`),
  within: (when, from, to) => `${time(from, 0)}–${time(to, 59)} ${when}`,
  dayOfWeek: (days) => {
    const names =
      days.length > 2 && isRun(days)
        ? `${ZH_DAYS[days[0]]}至${ZH_DAYS[days[days.length - 1]]}`
        : days.map((d) => ZH_DAYS[d]).join('、');
    return { lead: `每${names}`, tail: names };
  },
  dayOfMonth: (days) => {
    const text = `每月 ${days.join('、')} 日`;
    return { lead: text, tail: text };
  },
  dayOfYear: (days, months) => {
    const text = `每年 ${months.flatMap((m) => days.map((d) => `${m} 月 ${d} 日`)).join('、')}`;
    return { lead: text, tail: text };
  },
  inMonths: (months) => {
    const names = months.map((m) => `${m} 月`).join('、');
    return { lead: `${names}每天`, tail: names };
  },
};

/** At most this many times are listed ("09:00 and 17:00"); more reads worse than the cron. */
const MAX_TIMES = 4;

/** The days: null for every day, or their words; undefined when they are not worded. */
function daysOf(p: Parsed, w: Words): Days | null | undefined {
  const { dom, month, dow } = p;
  if (dom.kind === 'step' || month.kind === 'step' || dow.kind === 'step') return undefined;
  // Both a day of the month and a day of the week: cron runs on either, a sentence would mislead.
  if (dom.kind === 'set' && dow.kind === 'set') return undefined;
  if (dow.kind === 'set') {
    if (month.kind === 'set') return undefined;
    const days = dow.values.join();
    if (days === '1,2,3,4,5') return w.weekdays;
    if (days === '0,6') return w.weekends;
    return w.dayOfWeek(dow.values);
  }
  if (dom.kind === 'set') {
    return month.kind === 'set' ? w.dayOfYear(dom.values, month.values) : w.dayOfMonth(dom.values);
  }
  if (month.kind === 'set') return w.inMonths(month.values);
  return null;
}

/**
 * The expression in words in `language`, or null when it is not one of the shapes this reads
 * (the caller then shows the expression).
 */
export function cronInWords(expression: string, language: CronLanguage): string | null {
  const p = parse(expression);
  if (!p) return null;
  const w = language === 'zh-CN' ? ZH : EN;
  const days = daysOf(p, w);
  if (days === undefined) return null;
  const { minute, hour } = p;

  if (minute.kind === 'set' && hour.kind === 'set') {
    if (minute.values.length * hour.values.length <= MAX_TIMES) {
      return w.at(days, w.list(hour.values.flatMap((h) => minute.values.map((m) => time(h, m)))));
    }
    // One minute of each hour in a span: "Every hour at :30, between 09:00 and 17:59".
    if (minute.values.length !== 1 || !isRun(hour.values)) return null;
    const span = w.within(w.hourlyAt(minute.values[0]), hour.values[0], hour.values.at(-1)!);
    return w.interval(days, span);
  }
  let when: string | null = null;
  if (hour.kind === 'any') {
    if (minute.kind === 'any') when = w.everyMinute;
    else if (minute.kind === 'step') when = w.everyMinutes(minute.step);
    else if (minute.values.length === 1) when = w.hourlyAt(minute.values[0]);
  } else if (hour.kind === 'step') {
    if (minute.kind === 'set' && minute.values.length === 1) {
      when = w.everyHoursAt(hour.step, minute.values[0]);
    }
  } else if (isRun(hour.values)) {
    const every = minute.kind === 'step' ? w.everyMinutes(minute.step) : w.everyMinute;
    when = w.within(every, hour.values[0], hour.values.at(-1)!);
  }
  return when === null ? null : w.interval(days, when);
}
