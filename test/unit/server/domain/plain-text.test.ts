import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { EXCERPT_CHARS, excerptOf, plainTextOf } from '../../../../server/domain/plain-text';
import {
  escapeHtml,
  markdownWithWords,
  plainLine,
  SYNTAX_LEFT_OVER,
} from '../../../helpers/plain-text-arbitraries';

describe('plainTextOf() (excerpts of notifications and titles made from a body)', () => {
  it('plain text survives unchanged in every format', () => {
    fc.assert(
      fc.property(plainLine, (line) => {
        expect(plainTextOf(line, 'text')).toBe(line);
        expect(plainTextOf(line, 'markdown')).toBe(line);
        expect(plainTextOf(`<p>${escapeHtml(line)}</p>`, 'html')).toBe(line);
      }),
      { numRuns: 300 },
    );
  });

  it('Markdown syntax is removed and the words it marks stay', () => {
    fc.assert(
      fc.property(markdownWithWords, ({ markdown, words }) => {
        const plain = plainTextOf(markdown, 'markdown');
        expect(plain).toBe(words);
        expect(plain).not.toMatch(SYNTAX_LEFT_OVER);
      }),
      { numRuns: 300 },
    );
  });

  it('the issue’s examples read as typed', () => {
    expect(plainTextOf('db-2 is down on 数据库-主节点: _ ! ( )', 'markdown')).toBe(
      'db-2 is down on 数据库-主节点: _ ! ( )',
    );
  });

  it('rules, images, tables, code and character references read as the page shows them', () => {
    const md =
      'x\n\n---\n\n![chart](https://x.example/c.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n' +
      '```\nblock_1\n```\n\nTom &amp; Jerry &eacute; <b>raw</b>';
    expect(plainTextOf(md, 'markdown')).not.toMatch(/---|\||!\[|```|&amp;|<b>/);
    expect(plainTextOf(md, 'markdown')).toContain('block_1 Tom & Jerry é raw');
    expect(plainTextOf('<p>a</p><script>x()</script><p>b &lt;3</p>', 'html')).toBe('a b <3');
  });
});

describe('excerptOf() (the reader list’s line, made by the server)', () => {
  it('is the text a reader sees, handlers and scripts and styles left out', () => {
    const hostile =
      '<style>p{}</style><p>R&amp;D <img src=x onerror="alert(1)"><a href="#" onclick="x()">db-2</a></p><script>steal()</script>';
    expect(excerptOf(hostile, 'html')).toBe('R&D db-2');
    expect(excerptOf('**db-2** on 数据库-主节点: _ ! ( )', 'markdown')).toBe(
      'db-2 on 数据库-主节点: _ ! ( )',
    );
  });

  it(`stops at ${EXCERPT_CHARS} characters, never inside an emoji`, () => {
    expect(excerptOf('a'.repeat(500), 'text')).toBe('a'.repeat(EXCERPT_CHARS));
    const emoji = excerptOf('🎉'.repeat(300), 'markdown');
    expect(Array.from(emoji)).toHaveLength(EXCERPT_CHARS);
    expect(emoji).toBe('🎉'.repeat(EXCERPT_CHARS));
  });
});
