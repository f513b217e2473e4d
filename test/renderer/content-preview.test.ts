// @vitest-environment jsdom
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { contentPreview } from '../../renderer/src/lib/render-content';
import {
  escapeHtml,
  markdownWithWords,
  plainLine,
  SYNTAX_LEFT_OVER,
} from '../helpers/plain-text-arbitraries';

const WHOLE = 100_000;

describe('contentPreview() (the reader’s list)', () => {
  it('plain text survives unchanged in every format', () => {
    fc.assert(
      fc.property(plainLine, (line) => {
        expect(contentPreview(line, 'text', WHOLE)).toBe(line);
        expect(contentPreview(line, 'markdown', WHOLE)).toBe(line);
        expect(contentPreview(`<p>${escapeHtml(line)}</p>`, 'html', WHOLE)).toBe(line);
      }),
      { numRuns: 300 },
    );
  });

  it('Markdown syntax is removed and the words it marks stay', () => {
    fc.assert(
      fc.property(markdownWithWords, ({ markdown, words }) => {
        const preview = contentPreview(markdown, 'markdown', WHOLE);
        expect(preview).toBe(words);
        expect(preview).not.toMatch(SYNTAX_LEFT_OVER);
      }),
      { numRuns: 300 },
    );
  });

  it('the issue’s examples read as typed', () => {
    expect(contentPreview('db-2 is down on 数据库-主节点: _ ! ( )', 'markdown')).toBe(
      'db-2 is down on 数据库-主节点: _ ! ( )',
    );
  });

  it('rules, images, tables, code and character references read as the page shows them', () => {
    const md =
      'x\n\n---\n\n![chart](https://x.example/c.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n' +
      '```\nblock_1\n```\n\nTom &amp; Jerry &eacute; <b>raw</b>';
    expect(contentPreview(md, 'markdown', WHOLE)).toBe('x a b 1 2 block_1 Tom & Jerry é raw');
  });

  it('an HTML body shows its text: no script or style text, every entity decoded', () => {
    expect(
      contentPreview(
        '<style>p{}</style><p>R&amp;D &lt;3 &quot;ok&quot; &eacute;&#169;</p><script>x()</script><p>next</p>',
        'html',
      ),
    ).toBe('R&D <3 "ok" é© next');
  });

  it('a long preview is cut at a code point with an ellipsis', () => {
    expect(contentPreview('a'.repeat(100), 'text', 10)).toBe('aaaaaaaaa…');
    expect(contentPreview('🎉'.repeat(20), 'markdown', 5)).toBe('🎉🎉🎉🎉…');
  });
});
