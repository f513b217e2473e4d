/**
 * A marker as the server reads one (server/domain/placeholders.ts MARKER, held to it by
 * test/renderer/placeholder-markers.test.ts): a key of letters and digits of any script, `_`,
 * `.` and `-`, in double curly braces, spaces inside tolerated.
 */
const MARKER = /\{\{\s*([\p{L}\p{N}_.-]+)\s*\}\}/gu;

/** The keys of a body's markers, each once, in the order they first appear. */
export function markerKeys(content: string): string[] {
  return [...new Set([...content.matchAll(MARKER)].map((m) => m[1]))];
}

/** A key written as its marker. */
export const markerOf = (key: string): string => `{{${key}}}`;
