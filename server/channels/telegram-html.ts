import { decodeHTMLStrict } from 'entities';
import sanitizeHtml from 'sanitize-html';

/**
 * Telegram's HTML parse mode knows a handful of inline tags and no blocks: no <p>, no <br>,
 * newlines are literal. Anything else makes sendMessage fail with "can't parse entities".
 * This module turns arbitrary HTML (an HTML body, or Markdown already rendered to HTML) into
 * text that parse mode accepts, keeping what Telegram can show and flattening the rest.
 */

const INLINE: Record<string, string> = {
  b: 'b',
  strong: 'b',
  i: 'i',
  em: 'i',
  u: 'u',
  ins: 'u',
  s: 's',
  strike: 's',
  del: 's',
  'tg-spoiler': 'tg-spoiler',
};
const BLOCK = new Set(['p', 'div', 'table', 'ul', 'ol', 'li', 'tr', 'section', 'article']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const LINK_SCHEMES = /^(https?:|tg:|mailto:)/i;

// Step one normalises: balanced tags, a known tag set, attributes quoted and escaped, text
// escaped, scripts/styles/head dropped with their content. Step two can then trust the shape.
// Entities are decoded here: Telegram knows only &lt; &gt; &amp; &quot; by name, so `&eacute;`
// must leave as `é`; sanitize-html decodes every reference and escapes only & < > (and " in
// attributes) again, which is exactly what Telegram accepts.
const SANITIZE: sanitizeHtml.IOptions = {
  parser: { decodeEntities: true },
  allowedTags: [
    ...Object.keys(INLINE),
    ...BLOCK,
    ...HEADINGS,
    'br',
    'hr',
    'td',
    'th',
    'a',
    'code',
    'pre',
    'blockquote',
    'span',
    'input',
  ],
  allowedAttributes: {
    a: ['href'],
    code: ['class'],
    span: ['class'],
    blockquote: ['expandable'],
    input: ['type', 'checked'],
  },
  allowedClasses: { code: ['language-*'], span: ['tg-spoiler'] },
  allowedSchemes: ['http', 'https', 'tg', 'mailto'],
  allowProtocolRelative: false,
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'head'],
  disallowedTagsMode: 'discard',
};

const OPENS_BLOCK = /<(blockquote|pre)(\s[^>]*)?>$/;
const TAG = /<(\/?)([a-z][a-z0-9-]*)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*\/?>/g;

interface Open {
  name: string;
  /** The Telegram tag this opened, or null when it was flattened away. */
  emitted: string | null;
}

interface ListState {
  ordered: boolean;
  next: number;
}

function attr(attrs: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}(?:="([^"]*)")?`).exec(attrs);
  if (!m) return undefined;
  return m[1] ?? '';
}

/** Escapes text for Telegram HTML (outside and inside tags alike). */
export function escapeTelegramHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Converts arbitrary HTML into Telegram parse-mode HTML. */
export function toTelegramHtml(html: string): string {
  const clean = sanitizeHtml(html, SANITIZE);
  let out = '';
  let pendingBreaks = 0;
  const stack: Open[] = [];
  const lists: ListState[] = [];
  let rowCells = 0;
  let inPre = 0;
  let inCode = 0;
  let inLink = 0;
  let inQuote = 0;

  // Right after <blockquote> or <pre> is a line start too: a break there would show as a gap.
  const atLineStart = () =>
    out === '' || out.endsWith('\n') || pendingBreaks > 0 || OPENS_BLOCK.test(out);
  const blockBreak = (n: number) => {
    if (out !== '' && !OPENS_BLOCK.test(out)) pendingBreaks = Math.max(pendingBreaks, n);
  };
  const flush = () => {
    if (pendingBreaks > 0 && out !== '') {
      out = out.replace(/[ \t]+$/, '') + '\n'.repeat(pendingBreaks);
    }
    pendingBreaks = 0;
  };
  const emit = (s: string) => {
    flush();
    out += s;
  };
  const text = (raw: string) => {
    if (inPre) return emit(raw);
    // HTML whitespace only: a no-break space is content.
    let t = raw.replace(/[ \t\n\r\f]+/g, ' ');
    if (atLineStart()) t = t.replace(/^ /, '');
    if (t) emit(t);
  };

  let last = 0;
  for (const m of clean.matchAll(TAG)) {
    if (m.index > last) text(clean.slice(last, m.index));
    last = m.index + m[0].length;
    const closing = m[1] === '/';
    const name = m[2];
    const attrs = m[3] ?? '';

    if (closing) {
      // sanitize-html balances tags, so the top of the stack is the one being closed.
      const open = stack.pop();
      if (!open) continue;
      // A closing tag goes before any pending break, so "</blockquote>" ends the last line.
      if (open.emitted) out = `${out.replace(/[ \t]+$/, '')}</${open.emitted}>`;
      if (name === 'pre') inPre--;
      if (name === 'code') inCode--;
      if (name === 'a') inLink--;
      if (name === 'blockquote') inQuote--;
      if (name === 'ul' || name === 'ol') {
        lists.pop();
        blockBreak(lists.length ? 1 : 2);
      }
      if (HEADINGS.has(name) || name === 'pre' || name === 'blockquote' || name === 'table')
        blockBreak(2);
      else if (name === 'p') blockBreak(lists.length ? 1 : 2);
      else if (BLOCK.has(name)) blockBreak(1);
      continue;
    }
    if (name === 'br') {
      if (inPre) emit('\n');
      else {
        flush();
        out += '\n';
      }
      continue;
    }
    if (name === 'input') {
      // A Markdown task-list checkbox; other inputs have nothing to show.
      if (attr(attrs, 'type') === 'checkbox')
        emit(attr(attrs, 'checked') !== undefined ? '☑' : '☐');
      continue;
    }
    if (name === 'hr') {
      blockBreak(1);
      emit('──────────');
      blockBreak(1);
      continue;
    }

    let emitted: string | null = null;
    const flat = inCode > 0 || (inPre > 0 && name !== 'code');
    if (name === 'pre') {
      blockBreak(2);
      if (!inPre && !inCode) emitted = 'pre';
      inPre++;
    } else if (name === 'code') {
      const lang = /(?:^|\s)language-([\w+#.-]+)/.exec(attr(attrs, 'class') ?? '')?.[1];
      if (!inCode) {
        // Inside <pre> a <code class="language-x"> names the language; elsewhere it is inline code.
        emitted = inPre ? (lang ? `code class="language-${lang}"` : null) : 'code';
      }
      inCode++;
    } else if (name === 'a') {
      const href = attr(attrs, 'href');
      if (!flat && !inLink && href && LINK_SCHEMES.test(href)) emitted = `a href="${href}"`;
      inLink++;
    } else if (name === 'blockquote') {
      blockBreak(2);
      if (!flat && !inQuote)
        emitted = attr(attrs, 'expandable') !== undefined ? 'blockquote expandable' : 'blockquote';
      inQuote++;
    } else if (name === 'span') {
      if (!flat && (attr(attrs, 'class') ?? '').split(/\s+/).includes('tg-spoiler'))
        emitted = 'tg-spoiler';
    } else if (INLINE[name]) {
      if (!flat) emitted = INLINE[name];
    } else if (HEADINGS.has(name)) {
      blockBreak(2);
      if (!flat) emitted = 'b';
    } else if (name === 'ul' || name === 'ol') {
      blockBreak(lists.length ? 1 : 2);
      lists.push({ ordered: name === 'ol', next: 1 });
    } else if (name === 'li') {
      blockBreak(1);
      const list = lists[lists.length - 1];
      const indent = '  '.repeat(Math.max(0, lists.length - 1));
      emit(`${indent}${list?.ordered ? `${list.next++}.` : '•'} `);
    } else if (name === 'tr') {
      blockBreak(1);
      rowCells = 0;
    } else if (name === 'td' || name === 'th') {
      if (rowCells++ > 0) {
        out = out.replace(/[ \t]+$/, '');
        emit(' | ');
      }
      if (name === 'th' && !flat) emitted = 'b';
    } else if (BLOCK.has(name)) {
      blockBreak(name === 'p' ? (lists.length ? 0 : 2) : 1);
    }
    stack.push({ name, emitted: emitted ? emitted.split(' ')[0] : null });
    if (emitted) emit(`<${emitted}>`);
  }
  if (last < clean.length) text(clean.slice(last));
  return out.replace(/[ \t]+$/, '');
}

/** The text a reader sees: tags removed, entities decoded. Telegram's limit applies to this. */
export function telegramVisibleText(html: string): string {
  return decodeHTMLStrict(html.replace(/<[^>]*>/g, ''));
}
