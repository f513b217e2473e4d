import { convert } from 'html-to-text';

import type { ContentType } from '../channels/channel-adapter';
import { markdownToHtml } from './content-format';

/**
 * Block elements become breaks and nothing else: html-to-text's own formats write list bullets
 * (`*`), blockquote marks (`>`), rules (`----`) and capitalised headings, which in a one-line
 * excerpt read as the Markdown the body was written in.
 */
const BLOCKS = [
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'pre',
  'table',
  'tr',
];

const OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'hr', format: 'skip' },
    ...BLOCKS.map((selector) => ({ selector, format: 'block' })),
    { selector: 'th', format: 'inline' },
    { selector: 'td', format: 'inline' },
  ],
};

/**
 * A body as one line of the text a reader sees, for excerpts (native notifications, a title
 * made from the body): Markdown is rendered with the parser the deliveries use and HTML read as
 * a browser shows it, so what a person typed (`db-2`, `数据库-主节点`, `_ ! ( )`) comes through
 * unchanged while markup and Markdown syntax do not. Links keep their text, images disappear.
 */
export function plainTextOf(content: string, format: ContentType | string): string {
  if (!content) return '';
  let text = content;
  if (format === 'markdown') text = convert(markdownToHtml(content), OPTIONS);
  else if (format === 'html') text = convert(content, OPTIONS);
  return text.replace(/\s+/g, ' ').trim();
}

/** How much of a body a list's excerpt carries: more than a wide row shows. */
export const EXCERPT_CHARS = 200;

/** The start of `plainTextOf`, cut at a code point (an emoji is never split). */
export function excerptOf(content: string, format: ContentType | string): string {
  const chars = Array.from(plainTextOf(content, format));
  return chars.length > EXCERPT_CHARS ? chars.slice(0, EXCERPT_CHARS).join('') : chars.join('');
}
