import type { HookPresetName } from '../../../contract';

/** Request headers by lower-case name, as Node gives them (repeated ones joined). */
export type HookHeaders = Readonly<Record<string, string | undefined>>;

/** What a preset makes of a payload: the send's title and placeholder values. */
export interface HookMessage {
  /** Empty: the template's name stands in (the generic preset without a `title`). */
  title: string;
  /** Named values (status, alertname, …) over every JSON leaf by its dotted path. */
  placeholders: Record<string, string>;
  /**
   * The names the preset itself fills (GitHub's `action`, Alertmanager's `severity`), as opposed
   * to the payload's dotted paths. The preset knows these belong to its payload, so one the
   * payload lacks renders empty rather than leaving its marker (docs/hooks.md); V2's rule for a
   * sender's own placeholders is unchanged.
   */
  ownFields?: readonly string[];
  /** The preset's own dedup key (Alertmanager: groupKey and status); the query's wins. */
  dedupKey?: string;
  /**
   * Set when the payload is a sender's check that carries no message (GitHub's `ping`): the
   * hook answers success once the token and signature are checked, and sends nothing.
   */
  skip?: string;
}

/** One sender's payload format (docs/hooks.md). */
export interface HookPreset {
  name: HookPresetName;
  /** The body is read as JSON; every preset today takes JSON. */
  contentType: 'json';
  /** The send's title and placeholders; throws a 400 AppError for a payload it cannot read. */
  toMessage(body: unknown, headers: HookHeaders): HookMessage;
}

/**
 * The longest placeholder value a hook passes on: a commit message or an alert description
 * longer than this is cut with "…" rather than refusing the whole hook, which the sender could
 * not fix anyway. The filled bodies' limits (LIMITS.contentChars) still apply after it.
 */
export const HOOK_VALUE_CHARS = 10_000;

/** The most JSON leaves taken as dotted-path placeholders; a huge payload keeps its first ones. */
export const HOOK_MAX_LEAVES = 2_000;

/** Deeper than any sender's payload nests; deeper leaves are left out, never walked. */
const MAX_DEPTH = 32;

/** A placeholder key as a marker can hold it (domain/placeholders.ts). */
const MARKER_KEY = /^[\p{L}\p{N}_.-]+$/u;

/** C0 controls but tab, line feed and carriage return: V2 refuses them in any value. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;

/** Cuts a value to `max` characters, ending with "…", and replaces control characters. */
export function clip(value: string, max = HOOK_VALUE_CHARS): string {
  const clean = value.replace(CONTROL, '\uFFFD');
  if (clean.length <= max) return clean;
  // Never split a surrogate pair: a lone half becomes U+FFFD on PostgreSQL.
  let end = max - 1;
  if (/[\uD800-\uDBFF]/.test(clean.charAt(end - 1))) end -= 1;
  return `${clean.slice(0, end)}…`;
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON value as placeholder text: strings as they are, numbers and booleans written out. */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** The value at a dotted path of nested objects (`repository.full_name`), as text. */
export function at(body: unknown, path: string): string {
  let value: unknown = body;
  for (const key of path.split('.')) {
    if (!isRecord(value)) return '';
    value = value[key];
  }
  return text(value);
}

/** The first line of a text (a commit message's subject). */
export const firstLine = (value: string) => value.split(/\r?\n/, 1)[0].trim();

/**
 * Every leaf of a JSON value by its dotted path (`deploy.env`, `deploy.items.1`): strings,
 * numbers and booleans as text. Null leaves are left out, so a placeholder's default applies,
 * as with V2's null values; so are paths a marker cannot name (a key with a space).
 */
export function dottedLeaves(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  let count = 0;
  const stack: Array<{ value: unknown; path: string; depth: number }> = [
    { value: body, path: '', depth: 0 },
  ];
  while (stack.length > 0 && count < HOOK_MAX_LEAVES) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'object' && value !== null) {
      if (depth >= MAX_DEPTH) continue;
      const entries = Array.isArray(value)
        ? value.map((item, i) => [String(i), item] as const)
        : Object.entries(value);
      // Pushed in reverse so the walk (and so the cut at HOOK_MAX_LEAVES) follows the payload.
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i];
        stack.push({ value: item, path: path ? `${path}.${key}` : key, depth: depth + 1 });
      }
      continue;
    }
    if (value === null || value === undefined || path === '' || !MARKER_KEY.test(path)) continue;
    out[path] = clip(text(value));
    count += 1;
  }
  return out;
}

/**
 * A preset's placeholders: its named values over the payload's dotted paths (names win on a
 * clash), each clipped, and which of them are its own fields.
 */
export function presetValues(
  body: unknown,
  named: Record<string, string>,
): Pick<HookMessage, 'placeholders' | 'ownFields'> {
  const placeholders = dottedLeaves(body);
  for (const [key, value] of Object.entries(named)) placeholders[key] = clip(value);
  return { placeholders, ownFields: Object.keys(named) };
}
