import { convert as htmlToTextLib } from 'html-to-text';
import { Marked } from 'marked';

import type { ContentType } from '../channels/channel-adapter';

// A private instance, so no other module's marked.use() changes how Herald renders.
const marked = new Marked({ gfm: true, breaks: true, async: false });

export function markdownToHtml(markdown: string): string {
  return (marked.parse(markdown) as string).trim();
}

export function htmlToText(html: string): string {
  return htmlToTextLib(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'img', format: 'skip' },
    ],
  }).trim();
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function textToHtml(text: string): string {
  return escapeHtml(text).replace(/\r?\n/g, '<br>\n');
}

/**
 * Converts a body from one format to another, so an HTML email never shows raw Markdown
 * and a text-only channel never shows tags. Text is valid Markdown as it is.
 */
export function convertContent(body: string, from: ContentType, to: ContentType): string {
  if (from === to) return body;
  if (to === 'html') return from === 'markdown' ? markdownToHtml(body) : textToHtml(body);
  if (to === 'text') return htmlToText(from === 'markdown' ? markdownToHtml(body) : body);
  // to markdown: plain text already is; HTML is reduced to text rather than guessed back.
  return from === 'html' ? htmlToText(body) : body;
}

/** The contract's "first present wins" order for each instance ContentType. */
export const FALLBACK_ORDER: Record<ContentType, readonly ContentType[]> = {
  html: ['html', 'markdown', 'text'],
  markdown: ['markdown', 'text', 'html'],
  text: ['text', 'markdown', 'html'],
};

export type Bodies = Partial<Record<ContentType, string | null | undefined>>;

const present = (v: string | null | undefined): v is string =>
  typeof v === 'string' && v.length > 0;

/**
 * Picks the body for an instance by the contract's order and converts it to the instance's
 * format. Returns null when no body is present at all.
 */
export function chooseContent(
  bodies: Bodies,
  contentType: ContentType,
): { content: string; source: ContentType } | null {
  for (const candidate of FALLBACK_ORDER[contentType]) {
    const body = bodies[candidate];
    if (present(body))
      return { content: convertContent(body, candidate, contentType), source: candidate };
  }
  return null;
}

export function hasAnyBody(bodies: Bodies): boolean {
  return present(bodies.text) || present(bodies.html) || present(bodies.markdown);
}
