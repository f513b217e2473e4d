/**
 * Message Nest's column values as its three databases return them: SQLite text and numbers,
 * MySQL numbers for booleans, PostgreSQL booleans, and timestamps as Date objects or text.
 */
export type Row = Record<string, unknown>;

export function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

export function flag(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value) === 1;
  const t = text(value).trim().toLowerCase();
  return t === '1' || t === 'true' || t === 't';
}

/** A JSON column (`auth`, `config`, `placeholders`); anything that does not parse is empty. */
export function jsonOf(value: unknown): unknown {
  const t = text(value).trim();
  if (!t) return null;
  try {
    return JSON.parse(t);
  } catch {
    return null;
  }
}

export function recordOf(value: unknown): Record<string, unknown> {
  const parsed = jsonOf(value);
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

const GO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?(?:\s+[A-Za-z][A-Za-z0-9+-]*)?$/;

/**
 * A timestamp: a Date from a driver, or the text SQLite holds (Go's `time.Time.String()`, e.g.
 * `2026-07-20 09:15:02.123456789 +0800 CST m=+0.01`, or ISO-8601). Text without an offset is
 * read in this machine's zone, as Message Nest wrote it in its own. Null when absent or unreadable.
 */
export function timeOf(value: unknown): Date | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value;
  const raw = text(value)
    .trim()
    .replace(/\s+m=[+-][0-9.]+$/, '');
  if (!raw) return null;
  const m = GO_TIME.exec(raw);
  if (!m) {
    const parsed = new Date(raw);
    return Number.isNaN(parsed.getTime()) ? null : parsed;
  }
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const ms = Number((fraction ?? '0').padEnd(3, '0').slice(0, 3));
  if (!zone) {
    const local = new Date(+y, +mo - 1, +d, +h, +mi, +s, ms);
    return Number.isNaN(local.getTime()) ? null : local;
  }
  const offset =
    zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.length > 3 ? zone.slice(-2) : '00'}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${String(ms).padStart(3, '0')}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date;
}
