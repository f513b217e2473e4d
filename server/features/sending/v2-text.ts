import type { PlaceholderWarning } from '../../../contract';
import type { Bodies } from '../../domain/content-format';
import { hasAnyBody } from '../../domain/content-format';
import { markerKeys } from '../../domain/placeholders';

/**
 * What a V2 send's `text` field (`herald send --text`, or its stdin) does with its template
 * (docs/send-api.md "The text field"). A person who types a text expects it delivered:
 *
 * - `placeholder`: a body of the template has `{{text}}`, which the text fills (as
 *   `placeholders.text` would; an undeclared marker is then warned about as usual);
 * - `content`: no `{{text}}`, and no content at all or no placeholder values sent: the text is
 *   the message's content, in place of the template's (`replaced`: it had content of its own);
 * - `unused`: content without `{{text}}`, and placeholder values sent: the template's content is
 *   what they fill and the text is left out, with a warning that says so;
 * - `none`: no text, or `placeholders.text` given, which wins.
 */
export type TextUse =
  | { kind: 'none' }
  | { kind: 'placeholder'; text: string }
  | { kind: 'content'; bodies: Bodies; replaced: boolean }
  | { kind: 'unused' };

export function textUse(
  template: Bodies,
  text: string | undefined,
  values: Readonly<Record<string, string>>,
): TextUse {
  if (text === undefined || text === '' || Object.hasOwn(values, 'text')) return { kind: 'none' };
  const bodies = [template.text, template.html, template.markdown];
  if (bodies.some((body) => body && markerKeys(body).includes('text'))) {
    return { kind: 'placeholder', text };
  }
  const replaced = hasAnyBody(template);
  if (replaced && Object.keys(values).length > 0) return { kind: 'unused' };
  return { kind: 'content', bodies: { text, html: null, markdown: null }, replaced };
}

/** The warning a `content` (when it replaced the template's) or `unused` text gets. */
export function textWarning(use: TextUse, templateName: string): PlaceholderWarning | undefined {
  const noMarker = `template "${templateName}" has no {{text}} placeholder`;
  const where = 'put {{text}} in the template where the text belongs';
  if (use.kind === 'content' && use.replaced) {
    return {
      kind: 'textAsContent',
      key: 'text',
      message: `${noMarker}, so the text was sent as the message's content in place of the template's; ${where}`,
    };
  }
  if (use.kind === 'unused') {
    return {
      kind: 'textNotUsed',
      key: 'text',
      message: `${noMarker}, so the text was not sent: the placeholder values fill the template's content; ${where}`,
    };
  }
  return undefined;
}
