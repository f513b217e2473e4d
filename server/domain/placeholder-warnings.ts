import type { PlaceholderWarning, PlaceholderWarningKind } from '../../contract';
import type { PlaceholderDefinition } from '../db/models/template';
import { markerKeys } from './placeholders';

/** The kinds this module finds; the `text` field's own are v2-text.ts's. */
type MarkerWarningKind = Exclude<PlaceholderWarningKind, 'textAsContent' | 'textNotUsed'>;

/** What a template holds that its placeholders are checked against. */
export interface PlaceholderSource {
  name: string;
  text: string | null;
  html: string | null;
  markdown: string | null;
  /** Every key the send fills, `repeats` included (withRepeats). */
  placeholders: readonly PlaceholderDefinition[];
}

/**
 * What a V2 send with these values would leave unfilled or drop, in the order a reader fixes
 * them: values for keys the template does not declare, declared markers left without a value,
 * then markers the template never declared. Every body of the template counts, whichever an
 * instance picks, since a fallback may pick any. The send goes ahead either way (the interface
 * contract: an unfilled marker stays as written); these are for the caller and the send log.
 */
export function placeholderWarnings(
  template: PlaceholderSource,
  values: Readonly<Record<string, string>>,
): PlaceholderWarning[] {
  const declared = new Map(template.placeholders.map((d) => [d.key, d]));
  const used = new Set(
    [template.text, template.html, template.markdown].flatMap((body) =>
      body ? markerKeys(body) : [],
    ),
  );
  const declaredKeys = template.placeholders.map((d) => d.key).filter((k) => k !== 'repeats');
  const out: PlaceholderWarning[] = [];
  const add = (kind: MarkerWarningKind, key: string) =>
    out.push({ kind, key, message: sentence(kind, key, template.name, declaredKeys) });
  for (const key of Object.keys(values)) if (!declared.has(key)) add('notDeclared', key);
  for (const def of template.placeholders) {
    if (!used.has(def.key) || Object.prototype.hasOwnProperty.call(values, def.key)) continue;
    if (def.default === undefined || def.default === null) add('noValue', def.key);
  }
  for (const key of used) if (!declared.has(key)) add('markerNotDeclared', key);
  return out;
}

/** The sentence the send API answers for a warning; it names the key and says what happened. */
function sentence(
  kind: MarkerWarningKind,
  key: string,
  templateName: string,
  declaredKeys: readonly string[],
): string {
  switch (kind) {
    case 'notDeclared': {
      const list = declaredKeys.length ? declaredKeys.join(', ') : 'none';
      return `placeholder "${key}" is not declared by template "${templateName}" (it declares: ${list}), so its value is not used`;
    }
    case 'noValue':
      return `placeholder "${key}" has no value and no default, so {{${key}}} stays in the message as written`;
    case 'markerNotDeclared':
      return `{{${key}}} in template "${templateName}" is not a declared placeholder, so it stays in the message as written`;
  }
}
