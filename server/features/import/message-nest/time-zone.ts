import { canonicalTimeZone } from '../../schedules/cron';
import { ImportInputError } from './schema';
import type { Snapshot } from './snapshot';
import { text } from './values';

/**
 * The zone Message Nest's Docker image runs in (TZ=Asia/Shanghai), and so the zone its cron
 * messages ran in for nearly every installation. Message Nest keeps no zone of its own: its
 * settings table and app.ini hold none, and its scheduler runs in its process's zone.
 */
export const MESSAGE_NEST_DEFAULT_ZONE = 'Asia/Shanghai';

/** Where an imported schedule's zone came from, as the report says it. */
export type ScheduleZoneSource = 'cron' | 'option' | 'default';

/** The zone the import gives schedules whose expression names none, and why. */
export interface ImportTimeZone {
  zone: string;
  /** `option`: the importer was told (--time-zone, the console's field); `default`: it was not. */
  source: Exclude<ScheduleZoneSource, 'cron'>;
}

/**
 * The zone asked for (or Message Nest's default), by its canonical IANA name. An unknown name
 * is refused before anything is read or written: a schedule that runs hours off is worse than
 * no import.
 */
export function importTimeZone(asked: string | undefined): ImportTimeZone {
  if (asked === undefined || asked.trim() === '') {
    return { zone: MESSAGE_NEST_DEFAULT_ZONE, source: 'default' };
  }
  const trimmed = asked.trim();
  // ICU reads "CST" as America/Chicago; to a Message Nest user it is China Standard Time.
  if (/^[A-Za-z]{2,5}$/.test(trimmed) && !/^(utc|gmt)$/i.test(trimmed)) {
    throw new ImportInputError(
      `time zone "${trimmed}" is an abbreviation, which names different zones in different places (CST is China's and America's): give the zone Message Nest ran in by its IANA name, such as "Asia/Shanghai" (Message Nest's default), "Europe/Berlin" or "UTC"`,
    );
  }
  const zone = canonicalTimeZone(trimmed);
  if (!zone) {
    throw new ImportInputError(
      `time zone "${asked.trim()}" is not a known IANA time zone: give the zone Message Nest ran in by its name, such as "Asia/Shanghai" (Message Nest's default), "Europe/Berlin" or "UTC"`,
    );
  }
  return { zone, source: 'option' };
}

/** "+08:00": a zone's offset from UTC at an instant. */
export function offsetAt(zone: string, at: Date): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  const offset = (name ?? 'GMT').replace(/^GMT/, '');
  return offset === '' ? '+00:00' : offset;
}

// Go's time.Time.String() as Message Nest's SQLite driver writes it: the numeric offset of the
// process's zone at that instant, e.g. "2026-07-20 09:15:02.123 +0800 CST".
const WRITTEN_OFFSET =
  /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:[.,]\d+)?\s*([+-])(\d{2}):?(\d{2})(?:\s|$)/;

/**
 * The first of Message Nest's own timestamps whose offset is not the zone's at that instant: a
 * sign that Message Nest ran in another zone. Only SQLite text carries its writer's offset
 * (MySQL and PostgreSQL hand back instants), so on those this finds nothing.
 */
export function offsetMismatch(
  snapshot: Snapshot,
  zone: string,
): { table: string; id: string; written: string; zoneOffset: string } | null {
  for (const [table, rows] of Object.entries(snapshot.rows)) {
    for (const row of rows ?? []) {
      for (const column of ['created_on', 'modified_on']) {
        const m = WRITTEN_OFFSET.exec(text(row[column]).trim());
        if (!m) continue;
        const [, day, time, sign, hh, mm] = m;
        const written = `${sign}${hh}:${mm}`;
        const at = new Date(`${day}T${time}${written}`);
        if (Number.isNaN(at.getTime())) continue;
        const zoneOffset = offsetAt(zone, at);
        if (zoneOffset !== written) {
          const physical =
            snapshot.schema.tables[table as keyof typeof snapshot.schema.tables] ?? table;
          return { table: physical, id: text(row.id), written, zoneOffset };
        }
      }
    }
  }
  return null;
}
