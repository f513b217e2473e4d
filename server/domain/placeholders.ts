import type { ContentType } from '../channels/channel-adapter';
import type { PlaceholderDefinition } from '../db/models/template';
import { escapeHtml } from './content-format';

/**
 * A marker is a key in double curly braces; inner spaces are tolerated, as Mustache does. Keys
 * are letters and digits of any script (`{{服务名}}`, as Message Nest allows), `_`, `.` and `-`.
 */
const MARKER = /\{\{\s*([\p{L}\p{N}_.-]+)\s*\}\}/gu;

/** A content split at its markers, in order: the text between them, and each marker. */
type Piece = string | { marker: string; key: string };

/**
 * Contents already split, by content: a template's bodies are filled on every send, and
 * scanning them for markers (a Unicode-aware pattern) cost more than filling them. Bounded by
 * the characters held, so no number of templates or their size makes it grow past that.
 */
const split = new Map<string, readonly Piece[]>();
const SPLIT_CHARS = 1_000_000;
let splitChars = 0;

function piecesOf(content: string): readonly Piece[] {
  const known = split.get(content);
  if (known !== undefined) return known;
  const pieces: Piece[] = [];
  let last = 0;
  for (const match of content.matchAll(MARKER)) {
    if (match.index > last) pieces.push(content.slice(last, match.index));
    pieces.push({ marker: match[0], key: match[1] });
    last = match.index + match[0].length;
  }
  if (last < content.length) pieces.push(content.slice(last));
  if (splitChars + content.length > SPLIT_CHARS) {
    split.clear();
    splitChars = 0;
  }
  split.set(content, pieces);
  splitChars += content.length;
  return pieces;
}

/** The keys of the markers in a content, each once, in the order they first appear. */
export function markerKeys(content: string): string[] {
  const keys = new Set<string>();
  for (const piece of piecesOf(content)) if (typeof piece !== 'string') keys.add(piece.key);
  return [...keys];
}

/**
 * Replaces the markers of defined placeholders, one level only: a value that itself
 * contains a marker is inserted literally. A passed value wins over the default; a key with
 * neither, and any key the template does not define, stays as written. In HTML content the
 * values are HTML-escaped, as `{{ }}` does in Mustache.
 */
export function fillPlaceholders(
  content: string,
  definitions: readonly PlaceholderDefinition[],
  values: Record<string, string>,
  format: ContentType,
): string {
  const defined = new Map(definitions.map((d) => [d.key, d]));
  let out = '';
  for (const piece of piecesOf(content)) {
    if (typeof piece === 'string') {
      out += piece;
      continue;
    }
    const value = valueFor(defined.get(piece.key), piece.key, values);
    out += value === undefined ? piece.marker : format === 'html' ? escapeHtml(value) : value;
  }
  return out;
}

/**
 * The length fillPlaceholders would return, computed without building the string: a marker
 * repeated a thousand times and filled with a long value would otherwise allocate gigabytes
 * before any limit could be checked.
 */
export function filledLength(
  content: string,
  definitions: readonly PlaceholderDefinition[],
  values: Record<string, string>,
  format: ContentType,
): number {
  const defined = new Map(definitions.map((d) => [d.key, d]));
  // Per key: the length of its filled value, or null when its markers stay as written.
  const lengths = new Map<string, number | null>();
  let length = content.length;
  for (const piece of piecesOf(content)) {
    if (typeof piece === 'string') continue;
    const key = piece.key;
    let filled = lengths.get(key);
    // Stryker disable next-line ConditionalExpression: the cache only saves recomputing the same length
    if (filled === undefined) {
      const value = valueFor(defined.get(key), key, values);
      filled =
        value === undefined ? null : format === 'html' ? escapedHtmlLength(value) : value.length;
      lengths.set(key, filled);
    }
    if (filled !== null) length += filled - piece.marker.length;
  }
  return length;
}

/** A passed value wins over the default; undefined leaves the marker as written. */
function valueFor(
  def: PlaceholderDefinition | undefined,
  key: string,
  values: Record<string, string>,
): string | undefined {
  if (!def) return undefined;
  if (Object.prototype.hasOwnProperty.call(values, key)) return values[key];
  // Stryker disable next-line ConditionalExpression: either half alone returns undefined for the other
  if (def.default !== undefined && def.default !== null) return def.default;
  return undefined;
}

/** escapeHtml(text).length, counted rather than built. */
function escapedHtmlLength(text: string): number {
  let length = text.length;
  // Stryker disable next-line EqualityOperator: charCodeAt past the end is NaN, which counts nothing
  for (let i = 0; i < text.length; i++) {
    switch (text.charCodeAt(i)) {
      case 0x26: // &amp;
        length += 4;
        break;
      case 0x3c: // &lt;
      case 0x3e: // &gt;
        length += 3;
        break;
      case 0x22: // &quot;
        length += 5;
        break;
      case 0x27: // &#39;
        length += 4;
        break;
    }
  }
  return length;
}

/** Placeholder values may arrive as numbers or booleans from scripts; they are shown as text. */
export function normalisePlaceholderValues(input: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === null || value === undefined) continue;
    out[key] =
      // Stryker disable next-line ConditionalExpression,StringLiteral: String(s) is s for a string
      typeof value === 'string'
        ? value
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
  }
  return out;
}

/**
 * `{{repeats}}` is every template's, defined or not: how many sends with the send's dedup key
 * were suppressed since the last delivered one (0 without a dedup key). A template that
 * defines it keeps its label and default.
 */
export function withRepeats(
  definitions: readonly PlaceholderDefinition[],
): readonly PlaceholderDefinition[] {
  return definitions.some((d) => d.key === 'repeats')
    ? definitions
    : [...definitions, { key: 'repeats', label: 'repeats', default: '0' }];
}
