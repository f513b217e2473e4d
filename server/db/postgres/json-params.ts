/**
 * Parameters and fragments of PostgreSQL statements with JSON parameters: the PostgreSQL side
 * of ../sql-dialect.ts.
 */

/** A timestamptz parameter: UTC, as the models write it. */
export const at = (ms: number) => new Date(ms).toISOString();
/** The ids of a JSON array parameter, as a set to test `IN`. */
export const idsIn = (param: string) =>
  `(SELECT (jsonb_array_elements_text(${param}::jsonb))::integer)`;

/**
 * A JSON parameter PostgreSQL accepts. JSON.stringify writes a lone surrogate (a string cut
 * in the middle of a pair, a fuzzer's `"\ud800"`) as a `\ud800` escape, which json and jsonb
 * refuse; it becomes U+FFFD, as it does in any text parameter (pg encodes those as UTF-8) and
 * in SQLite.
 */
export const json = (value: unknown) => JSON.stringify(wellFormed(value));

/** Keys too: a request's placeholders are the caller's object, keys and all. */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string')
    return (value as string & { toWellFormed(): string }).toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [wellFormed(k) as string, wellFormed(v)]),
    );
  }
  return value;
}
