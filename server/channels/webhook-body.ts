/** The markers a custom webhook's body and URL may use. */
export const WEBHOOK_FIELDS = ['title', 'content', 'url', 'format'] as const;
export type WebhookField = (typeof WEBHOOK_FIELDS)[number];
export type WebhookValues = Record<WebhookField, string>;

export type BodyEncoding = 'json' | 'form' | 'xml' | 'text';

export const DEFAULT_WEBHOOK_BODY =
  '{"title":"{{title}}","content":"{{content}}","url":"{{url}}","format":"{{format}}"}';

const MARKER = /\{\{\s*(title|content|url|format)\s*\}\}/g;

/** How values must be escaped, from the Content-Type the webhook sends. */
export function bodyEncoding(contentType: string | undefined): BodyEncoding {
  const ct = (contentType ?? 'application/json').toLowerCase();
  if (ct.includes('json')) return 'json';
  if (ct.includes('x-www-form-urlencoded')) return 'form';
  if (ct.includes('xml') || ct.includes('html')) return 'xml';
  return 'text';
}

const xmlEscape = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/**
 * Fills a body template so that no value can break the body's syntax. In JSON a marker inside
 * a string literal gets the escaped characters; a bare marker becomes a whole JSON string.
 */
export function renderWebhookBody(
  template: string,
  values: WebhookValues,
  encoding: BodyEncoding,
): string {
  if (encoding === 'json') return renderJson(template, values);
  return template.replace(MARKER, (_m, key: WebhookField) => {
    const value = values[key];
    if (encoding === 'form') return encodeURIComponent(value);
    if (encoding === 'xml') return xmlEscape(value);
    return value;
  });
}

function renderJson(template: string, values: WebhookValues): string {
  let out = '';
  let inString = false;
  let i = 0;
  while (i < template.length) {
    const ch = template[i];
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a shortcut; the index check below is what decides
    if (ch === '{' && template[i + 1] === '{') {
      MARKER.lastIndex = i;
      const m = MARKER.exec(template);
      if (m && m.index === i) {
        const encoded = JSON.stringify(values[m[1] as WebhookField]);
        out += inString ? encoded.slice(1, -1) : encoded;
        i += m[0].length;
        continue;
      }
    }
    if (inString && ch === '\\') {
      out += ch + (template[i + 1] ?? '');
      i += 2;
      continue;
    }
    if (ch === '"') inString = !inString;
    out += ch;
    i += 1;
  }
  return out;
}

/** Fills markers in the webhook URL, percent-encoding each value. */
export function renderWebhookUrl(url: string, values: WebhookValues): string {
  return url.replace(MARKER, (_m, key: WebhookField) => encodeURIComponent(values[key]));
}
