import type { ContentType } from '../channels/channel-adapter';
import type { PlaceholderDefinition } from '../db/models/template';
import { escapeHtml } from './content-format';

/** A marker is a key in double curly braces; inner spaces are tolerated, as Mustache does. */
const MARKER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

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
  return content.replace(MARKER, (marker, key: string) => {
    const def = defined.get(key);
    if (!def) return marker;
    let value: string | undefined;
    if (Object.prototype.hasOwnProperty.call(values, key)) value = values[key];
    else if (def.default !== undefined && def.default !== null) value = def.default;
    if (value === undefined) return marker;
    return format === 'html' ? escapeHtml(value) : value;
  });
}

/** Placeholder values may arrive as numbers or booleans from scripts; they are shown as text. */
export function normalisePlaceholderValues(input: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === null || value === undefined) continue;
    out[key] =
      typeof value === 'string'
        ? value
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
  }
  return out;
}
