import { DEFAULT_WEBHOOK_BODY, WEBHOOK_FIELDS } from '../../contract/channel-kinds/webhook';

export { DEFAULT_WEBHOOK_BODY, WEBHOOK_FIELDS };
export type WebhookField = (typeof WEBHOOK_FIELDS)[number];
type TextField = 'title' | 'content' | 'url' | 'format';

/** A file of the send as the webhook's body carries it (issue 43 §2). */
export interface WebhookAttachment {
  /** Herald's absolute URL for the file. */
  url: string;
  name: string;
  /** The type sniffed from the bytes. */
  type: string;
  size: number;
}

/**
 * The values of one delivery. priority (1–5, null: none given) and repeats (suppressed
 * duplicates, 0 when absent) are numbers: a bare marker in JSON becomes a number (or null),
 * one inside a string or another encoding its digits ('' for no priority). attachments is an
 * array: a bare marker in JSON becomes the array, any other the files' URLs, one a line.
 */
export type WebhookValues = Record<TextField, string> & {
  priority?: number | null;
  repeats?: number;
  attachments?: readonly WebhookAttachment[];
};

/** Whether a body or URL template has the `{{attachments}}` marker (then it carries the files). */
export function mentionsAttachments(template: string): boolean {
  return /\{\{\s*attachments\s*\}\}/.test(template);
}

export type BodyEncoding = 'json' | 'form' | 'xml' | 'text';

const MARKER = new RegExp(String.raw`\{\{\s*(${WEBHOOK_FIELDS.join('|')})\s*\}\}`, 'g');

function textOf(values: WebhookValues, key: WebhookField): string {
  if (key === 'attachments') return (values.attachments ?? []).map((a) => a.url).join('\n');
  if (key === 'priority') return values.priority == null ? '' : String(values.priority);
  if (key === 'repeats') return String(values.repeats ?? 0);
  return values[key];
}

function jsonOf(values: WebhookValues, key: WebhookField): string {
  if (key === 'attachments') return JSON.stringify(values.attachments ?? []);
  if (key === 'priority') return JSON.stringify(values.priority ?? null);
  if (key === 'repeats') return String(values.repeats ?? 0);
  return JSON.stringify(values[key]);
}

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
    const value = textOf(values, key);
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
        const key = m[1] as WebhookField;
        out += inString ? JSON.stringify(textOf(values, key)).slice(1, -1) : jsonOf(values, key);
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
  return url.replace(MARKER, (_m, key: WebhookField) => encodeURIComponent(textOf(values, key)));
}

/**
 * The default JSON body with `"priority"`, `"repeats"` and `"attachments"` added when they say
 * something (a priority was given, duplicates were suppressed, the send has files). Only then: a delivery without either sends
 * exactly the body the default sent before they existed, so no receiver sees a new field
 * until a sender uses one. A body template of one's own carries them through its markers.
 */
export function withDeliveryFields(defaultJson: string, values: WebhookValues): string {
  const extra: {
    priority?: number;
    repeats?: number;
    attachments?: readonly WebhookAttachment[];
  } = {};
  if (values.priority != null) extra.priority = values.priority;
  if (values.repeats) extra.repeats = values.repeats;
  if (values.attachments?.length) extra.attachments = values.attachments;
  if (Object.keys(extra).length === 0) return defaultJson;
  return JSON.stringify({ ...(JSON.parse(defaultJson) as Record<string, unknown>), ...extra });
}
