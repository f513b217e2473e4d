import type { AuditChange } from '../../../contract';

/**
 * What the audit compares of a target: its fields as the console shows them, and for each
 * secret a fingerprint that changes when, and only when, the secret does. Fingerprints are
 * compared in memory and never stored: an entry says only that a secret changed.
 */
export interface AuditState {
  name: string | null;
  fields: Record<string, unknown>;
  secrets: Record<string, string | null>;
  /** Names of what the fields refer to by id, keyed `<kind>:<id>` (`template:1`). */
  names?: Record<string, string>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Nested objects become dotted fields (`config.webhookUrl`, `retry.maxAttempts`); lists stay whole. */
export function flatten(fields: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const name = `${prefix}${key}`;
    if (isPlainObject(value) && Object.keys(value).length > 0)
      Object.assign(out, flatten(value, `${name}.`));
    else out[name] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Field by field, before → after; null stands for a target that did not (or no longer) exist.
 * A secret is `{field, changed: true}` when it was set, cleared or replaced.
 */
export function diffStates(before: AuditState | null, after: AuditState | null): AuditChange[] {
  const changes: AuditChange[] = [];
  const b = flatten(before?.fields ?? {});
  const a = flatten(after?.fields ?? {});
  for (const field of [...new Set([...Object.keys(b), ...Object.keys(a)])]) {
    const was = field in b ? b[field] : null;
    const is = field in a ? a[field] : null;
    if (!same(was, is)) changes.push({ field, before: was, after: is });
  }
  const bs = before?.secrets ?? {};
  const as = after?.secrets ?? {};
  for (const field of [...new Set([...Object.keys(bs), ...Object.keys(as)])]) {
    if ((bs[field] ?? null) !== (as[field] ?? null)) changes.push({ field, changed: true });
  }
  return changes;
}
