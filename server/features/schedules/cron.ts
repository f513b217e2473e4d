import { Cron } from 'croner';

/**
 * Cron expressions as Message Nest reads them (robfig/cron's standard parser: five fields and
 * the @yearly … @hourly shortcuts), plus an optional leading seconds field. croner does the
 * calendar and time-zone arithmetic, daylight-saving changes included: a fixed time that falls
 * in a skipped hour runs at the first minute after the gap, and one that occurs twice runs once.
 */

export const CRON_SHORTCUTS = [
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
] as const;

/** A cron expression or time zone that cannot be used; the message says what to change. */
export class CronError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CronError';
  }
}

/** The zone this machine runs in: the default for new schedules. */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The canonical IANA name of a zone ("asia/shanghai" → "Asia/Shanghai"), or null if unknown. */
export function canonicalTimeZone(zone: string): string | null {
  const trimmed = zone.trim();
  // Offsets such as "+08:00" are not zones: they would ignore daylight-saving time.
  if (trimmed === '' || /^[+-]/.test(trimmed)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: trimmed }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Throws a CronError naming the problem, or answers the zone's canonical name. */
export function checkTimeZone(zone: string): string {
  const canonical = canonicalTimeZone(zone);
  if (!canonical) {
    throw new CronError(
      `"${zone}" is not a known IANA time zone; use a name such as "Asia/Shanghai", "Europe/Berlin" or "UTC"`,
    );
  }
  return canonical;
}

function checkShape(expression: string): string {
  const trimmed = expression.trim().replace(/\s+/g, ' ');
  if (trimmed === '') throw new CronError('is empty; write five fields, e.g. "0 9 * * 1-5"');
  if (trimmed.startsWith('@')) {
    const word = trimmed.toLowerCase();
    if ((CRON_SHORTCUTS as readonly string[]).includes(word)) return word;
    if (word.startsWith('@every')) {
      throw new CronError(
        '@every is not supported; write the interval as fields, e.g. "*/5 * * * *" for every 5 minutes',
      );
    }
    throw new CronError(`"${trimmed}" is not a shortcut; use one of ${CRON_SHORTCUTS.join(', ')}`);
  }
  const fields = trimmed.split(' ').length;
  if (fields !== 5 && fields !== 6) {
    throw new CronError(
      `has ${fields} field${fields === 1 ? '' : 's'}; write 5 (minute hour day-of-month month day-of-week), or 6 with seconds first`,
    );
  }
  return trimmed;
}

/** Parses an expression for a zone; throws a CronError whose message names the problem. */
export function compileCron(expression: string, timeZone: string): Cron {
  const pattern = checkShape(expression);
  const zone = checkTimeZone(timeZone);
  try {
    return new Cron(pattern, {
      timezone: zone,
      mode: '5-or-6-parts',
      // robfig/cron reads "5/15" as "from 5 every 15"; Message Nest's expressions use it.
      sloppyRanges: true,
      paused: true,
    });
  } catch (err) {
    throw new CronError(`is not valid: ${readableCronerError(err)}`);
  }
}

/** croner's own words, with its internal field numbers and names turned into cron's. */
function readableCronerError(err: unknown): string {
  const fieldNames = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week', 'year'];
  const message = err instanceof Error ? err.message : String(err);
  return message
    .replace(/^CronPattern:\s*/, '')
    .replace(/configuration entry (\d)/, (_m, i: string) => `the ${fieldNames[Number(i)]} field`)
    .replace(/\bdayOfWeek\b/, 'day-of-week')
    .replace(/for day:/, 'for day-of-month:');
}

/**
 * The next `count` times (epoch ms) strictly after `after`; fewer when the expression runs out
 * (a date that never comes, such as 30 February, gives none).
 */
export function nextCronRuns(
  expression: string,
  timeZone: string,
  after: number,
  count: number,
): number[] {
  const cron = compileCron(expression, timeZone);
  const runs: number[] = [];
  let cursor = new Date(after);
  while (runs.length < count) {
    const next = cron.nextRun(cursor);
    if (!next) break;
    runs.push(next.getTime());
    cursor = next;
  }
  return runs;
}

/** Checks that an expression parses and comes due at least once; answers its normal form. */
export function checkCron(expression: string, timeZone: string, now: number): string {
  const normal = checkShape(expression);
  if (nextCronRuns(normal, timeZone, now, 1).length === 0) {
    throw new CronError(`"${normal}" never comes due (a date such as 30 February never happens)`);
  }
  return normal;
}
