import DOMPurify from 'dompurify';
import { marked } from 'marked';

import type { ContentType } from '@contract';

let hooked = false;
let verified: boolean | null = null;

/**
 * What the sanitize call in progress does with remote resources, and how many images it held
 * back that the reader may show. DOMPurify hooks are global and its calls synchronous, so a
 * module-level pass state is safe: sanitizeCounting() sets it before each call and reads it
 * after. `all` keeps them (the administrator's own previews), `proxied` keeps only the image
 * proxy's addresses, `none` keeps none.
 */
const pass: { remote: 'all' | 'proxied' | 'none'; blocked: number } = {
  remote: 'all',
  blocked: 0,
};

/**
 * The image proxy's signed addresses, as the server writes them into a hosted message
 * (contract/console/image-proxy.ts IMAGE_PROXY_PATH; the console imports no contract values).
 */
const PROXIED_IMAGE = /^\/api\/console\/image-proxy\?/;

/** Attributes whose value the browser fetches as soon as the element exists. */
const FETCHING_ATTRS = ['src', 'srcset', 'poster', 'background', 'lowsrc', 'dynsrc'];

/** A data: URL is part of the message itself; anything else (even a relative URL) is a request. */
const isInline = (url: string): boolean => /^\s*data:/i.test(url);

/**
 * CSS that can make the browser fetch: url(), image-set() (which takes bare strings as URLs),
 * src(), and any backslash escape, which could spell either of them.
 */
const FETCHING_CSS = /url\s*\(|image-set|src\s*\(|\\|@import/i;

/** Marks a held-back image, so the console can draw a placeholder where it would be. */
export const BLOCKED_IMAGE_CLASS = 'herald-remote-image';

/**
 * In the reader, an image loads only through the image proxy, so the browser never asks the
 * sender's server: an image's src that is the proxy's address is kept once the reader chose to
 * see images (else held back and counted, so the reader can be asked), and every other remote
 * address is removed for good.
 */
function holdBackRemote(node: Element): void {
  for (const attr of FETCHING_ATTRS) {
    const value = node.getAttribute(attr);
    if (value === null || isInline(value)) continue;
    const proxied = node.tagName === 'IMG' && attr === 'src' && PROXIED_IMAGE.test(value);
    if (proxied && pass.remote === 'proxied') continue;
    node.removeAttribute(attr);
    if (proxied) pass.blocked++;
    if (node.tagName === 'IMG') node.classList.add(BLOCKED_IMAGE_CLASS);
  }
  const style = node.getAttribute('style');
  if (style !== null && FETCHING_CSS.test(style)) node.removeAttribute('style');
}

/**
 * Links in messages lead away from the console: open them in a new browsing context without
 * giving it a handle on this window. Remote images, media and CSS backgrounds are removed
 * while the pass blocks them: loading one tells its sender when and from where a message was
 * read.
 */
function installHooks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A' && node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
    if (pass.remote !== 'all' && typeof node.getAttribute === 'function') holdBackRemote(node);
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

export interface SanitizeOptions {
  /**
   * Keep images, media and CSS backgrounds that load from anywhere but a data: URL. Off in
   * the hosted-message reader until the reader asks; on for the administrator's own previews.
   */
  remoteImages?: boolean;
}

/** Sanitised HTML and the number of proxied images held back (0 once they are shown). */
export interface SanitizedHtml {
  html: string;
  blocked: number;
}

function sanitizeCounting(html: string, remote: typeof pass.remote): SanitizedHtml {
  installHooks();
  if (!purifierWorks()) return { html: `<pre>${escapeHtml(html)}</pre>`, blocked: 0 };
  pass.remote = remote;
  pass.blocked = 0;
  try {
    return { html: purify(html), blocked: pass.blocked };
  } finally {
    pass.remote = 'all';
  }
}

/**
 * Sanitises untrusted HTML for display inside the console: no scripts, no event handlers, no
 * javascript: URLs, no forms or style sheets that could restyle or phish the console.
 */
export function sanitizeHtml(html: string, { remoteImages = true }: SanitizeOptions = {}): string {
  return sanitizeCounting(html, remoteImages ? 'all' : 'none').html;
}

const markdownHtml = (markdown: string): string =>
  marked.parse(markdown, { async: false, gfm: true, breaks: true });

/** Renders Markdown to HTML and sanitises the result (Markdown may carry raw HTML). */
export function renderMarkdown(markdown: string, options: SanitizeOptions = {}): string {
  return sanitizeHtml(markdownHtml(markdown), options);
}

/**
 * What a body renders to: plain text (shown as text, never parsed) or sanitised HTML with the
 * count of proxied images held back.
 */
export type RenderedContent =
  { kind: 'text'; text: string } | { kind: 'html'; html: string; blocked: number };

/**
 * Renders a hosted message body in its format for display. `serverSafeHtml` is the server's own
 * sanitised rendering (GET /messages/:id): when given it is the input, so hostile markup is
 * already gone before the browser parses anything, and DOMPurify still runs over it as a
 * second line. Images show only at the image proxy's addresses the server wrote in, and only
 * when `remoteImages` is set; any other remote address never loads.
 */
export function renderContent(
  content: string,
  format: ContentType,
  serverSafeHtml?: string,
  { remoteImages = false }: SanitizeOptions = {},
): RenderedContent {
  if (format === 'text') return { kind: 'text', text: content };
  const html = serverSafeHtml || (format === 'markdown' ? markdownHtml(content) : content);
  return { kind: 'html', ...sanitizeCounting(html, remoteImages ? 'proxied' : 'none') };
}

/**
 * A list's one-line preview of a message: the server's excerpt (the text the full view shows,
 * Markdown rendered and HTML read as text, server/domain/plain-text.ts) cut at `max`
 * characters, at a code point. The console never parses a body's HTML for a list: even an inert
 * DOMParser document has Chromium report each inline handler in it as a CSP violation.
 */
export function excerptLine(excerpt: string, max = 80): string {
  const chars = Array.from(excerpt);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : excerpt;
}
