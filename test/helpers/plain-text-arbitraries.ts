import fc from 'fast-check';

/**
 * Generators for the "previews show what the reader sees" properties (issue 41 §5), shared by
 * the server's excerpts (server/domain/plain-text.ts) and the console's (contentPreview()).
 *
 * A word starts with a letter (Latin or Chinese), so no word opens a Markdown construct by
 * itself, and holds the characters a regex used to delete between its letters and digits:
 * `-`, `_`, `!`, `(`, `)` (between two of them an `_` is text, never emphasis). Between words
 * stand lone marks (`_`, `!`, `(`, `)`, `-`), which Markdown leaves as they are.
 */
const LETTERS = [...'abcdxyzDB数据库主节点服务'];
const ALNUM = [...LETTERS, ...'0129'];

const word = fc
  .tuple(
    fc.constantFrom(...LETTERS),
    fc.array(fc.tuple(fc.constantFrom('', '-', '_', '!', '(', ')'), fc.constantFrom(...ALNUM)), {
      maxLength: 6,
    }),
    fc.constantFrom('', '!', ')', '-'),
  )
  .map(([first, rest, last]) => first + rest.map(([sep, ch]) => sep + ch).join('') + last);

const mark = fc.constantFrom('_', '!', '(', ')', '-', '!(', '()');

const fixed = fc.constantFrom('db-2', '数据库-主节点', 'a_b_c', 'done!', '(x)', 'f(x)-1');

/** One line of plain text: words and lone marks, single spaces, starting with a word. */
export const plainLine = fc
  .tuple(word, fc.array(fc.oneof(word, mark, fixed), { maxLength: 12 }))
  .map(([first, rest]) => [first, ...rest].join(' '));

/** Inline Markdown around one word: the text a reader sees is the word alone. */
const inline: Array<(w: string) => string> = [
  (w) => w,
  (w) => `**${w}**`,
  (w) => `*${w}*`,
  // An `_` inside the word would close the emphasis early (CommonMark): those words go bare.
  (w) => (w.includes('_') ? w : `_${w}_`),
  (w) => `~~${w}~~`,
  (w) => `\`${w}\``,
  (w) => `[${w}](https://example.com/a_b-c)`,
];

/** Block Markdown before a line of text. */
const blocks = ['', '# ', '### ', '- ', '* ', '1. ', '> ', '- [ ] '];

/** Markdown and the words it shows, for "the syntax goes, the words stay". */
export const markdownWithWords = fc
  .array(
    fc.tuple(
      fc.constantFrom(...blocks),
      fc.array(fc.tuple(word, fc.nat(inline.length - 1)), { minLength: 1, maxLength: 6 }),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((lines) => ({
    markdown: lines
      .map(([block, words]) => block + words.map(([w, i]) => inline[i](w)).join(' '))
      // Blank lines between blocks: one block never continues into the next.
      .join('\n\n'),
    words: lines.flatMap(([, words]) => words.map(([w]) => w)).join(' '),
  }));

/** Characters that are Markdown syntax wherever this generator puts them. */
export const SYNTAX_LEFT_OVER = /\*\*|~~|`|\]\(|^#|^> |^- |^\* /m;

/** HTML escaping, for wrapping plain text in markup. */
export const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
