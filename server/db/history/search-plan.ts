/**
 * How a search string is answered. The full-text index holds trigrams of every column (each
 * column followed by char(1)), case-folded:
 * - 3 characters or more: an FTS5 phrase of the query's trigrams, which matches exactly the rows
 *   holding the query as a substring;
 * - 2 characters: the indexed trigrams that start with the query (the trailing char(1) gives one
 *   to a match at the very end of a column), looked up in the index's term list, OR-ed;
 * - 1 character, or anything the index cannot answer exactly: a LIKE scan, newest first.
 */
export type SearchPlan =
  | { kind: 'phrase'; match: string }
  | { kind: 'prefix'; from: string; below: string }
  | { kind: 'scan'; like: string };

/** Matches found beyond this are not counted: the total is then reported as capped. */
export const COUNT_CAP = 10_000;

/** A 2-character query whose trigrams are more varied than this is answered by a scan. */
export const MAX_PREFIX_TERMS = 2_000;

// char(1) marks the end of each indexed column; a query holding control characters could match
// it, so such queries are scanned.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f]/;

export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** An FTS5 string literal: the whole query as one phrase, quotes doubled. */
export function ftsPhrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** The smallest string greater than every string that starts with `prefix`. */
function upperBound(prefix: string): string | null {
  const chars = [...prefix];
  const last = chars.pop()!.codePointAt(0)!;
  if (last >= 0x10ffff) return null;
  const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
  return chars.join('') + String.fromCodePoint(next);
}

export function planSearch(q: string): SearchPlan {
  const scan: SearchPlan = { kind: 'scan', like: likePattern(q) };
  const length = [...q].length;
  if (CONTROL.test(q)) return scan;
  if (length >= 3) return { kind: 'phrase', match: ftsPhrase(q) };
  if (length === 1) return scan;
  // The index folds case with SQLite's Unicode tables; a query that lower-cases to a
  // different number of characters (İ) is not looked up by prefix.
  const folded = q.toLowerCase();
  if ([...folded].length !== length) return scan;
  const below = upperBound(folded);
  return below === null ? scan : { kind: 'prefix', from: folded, below };
}
