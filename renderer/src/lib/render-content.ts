import DOMPurify from 'dompurify';
import { marked } from 'marked';

import type { ContentType } from '../api/types';

let hooked = false;
let verified: boolean | null = null;

/**
 * Links in messages lead away from the console: open them in a new browsing context without
 * giving it a handle on this window.
 */
function installLinkHook(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A' && node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
}

const escapeHtml = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/**
 * DOMPurify returns its input unchanged where it deems the DOM unsupported, and some DOM
 * implementations (happy-dom) break its tree walk. Check once that it really strips a script
 * and a javascript: link; if not, show bodies as escaped text rather than trust them. (The
 * probe has no on* attribute: Chromium reports a CSP violation for every inline handler it
 * parses, even in an inert document, and that report would land in the console.)
 */
function purifierWorks(): boolean {
  if (verified === null) {
    const probe = purify('<b>ok</b><script>x()</script><a href="javascript:x()">a</a>');
    verified = DOMPurify.isSupported && probe.includes('<b>ok</b>') && !/script/i.test(probe);
  }
  return verified;
}

function purify(html: string): string {
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object'],
    FORBID_ATTR: ['srcset'],
    ADD_ATTR: ['target'],
  });
}

/**
 * Sanitises untrusted HTML for display inside the console: no scripts, no event handlers, no
 * javascript: URLs, no forms or style sheets that could restyle or phish the console.
 */
export function sanitizeHtml(html: string): string {
  installLinkHook();
  if (!purifierWorks()) return `<pre>${escapeHtml(html)}</pre>`;
  return purify(html);
}

/** Renders Markdown to HTML and sanitises the result (Markdown may carry raw HTML). */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: true });
  return sanitizeHtml(html);
}

/** What a body renders to: plain text (shown as text, never parsed) or sanitised HTML. */
export type RenderedContent = { kind: 'text'; text: string } | { kind: 'html'; html: string };

/**
 * Renders a body in its format for display. `serverSafeHtml` is the server's own sanitised
 * rendering (GET /messages/:id): when given it is the input, so hostile markup is already gone
 * before the browser parses anything, and DOMPurify still runs over it as a second line.
 */
export function renderContent(
  content: string,
  format: ContentType,
  serverSafeHtml?: string,
): RenderedContent {
  if (format !== 'text' && serverSafeHtml)
    return { kind: 'html', html: sanitizeHtml(serverSafeHtml) };
  if (format === 'html') return { kind: 'html', html: sanitizeHtml(content) };
  if (format === 'markdown') return { kind: 'html', html: renderMarkdown(content) };
  return { kind: 'text', text: content };
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  '#39': "'",
  nbsp: ' ',
};

/**
 * A one-line preview of a body for lists: tags and Markdown marks dropped, whitespace folded.
 * The result is shown as text (never as HTML), so plain string work is enough and the
 * browser never parses the hostile markup a list may hold.
 */
export function contentPreview(content: string, format: ContentType, max = 80): string {
  let text = content;
  if (format === 'html') {
    text = content
      .replace(/<(script|style)[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_m, name: string) => ENTITIES[name] ?? ' ');
  } else if (format === 'markdown') {
    text = content.replace(/[#>*_`~[\]()!-]+/g, ' ');
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
