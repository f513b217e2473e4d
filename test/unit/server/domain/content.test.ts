import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { chooseContent, convertContent } from '../../../../server/domain/content-format';
import { filledLength, fillPlaceholders } from '../../../../server/domain/placeholders';

describe('chooseContent()', () => {
  it('chooseContent() follows the contract order for each ContentType', () => {
    expect(chooseContent({ text: 'T', html: 'H', markdown: 'M' }, 'html')?.source).toBe('html');
    expect(chooseContent({ text: 'T', markdown: 'M' }, 'html')?.source).toBe('markdown');
    expect(chooseContent({ text: 'T' }, 'html')?.source).toBe('text');
    expect(chooseContent({ text: 'T', html: 'H' }, 'markdown')?.source).toBe('text');
    expect(chooseContent({ html: 'H' }, 'markdown')?.source).toBe('html');
    expect(chooseContent({ markdown: 'M', html: 'H' }, 'text')?.source).toBe('markdown');
    expect(chooseContent({ html: 'H' }, 'text')?.source).toBe('html');
    expect(chooseContent({ text: '', html: null }, 'text')).toBeNull();
  });

  it('convertContent() never leaves raw Markdown in HTML or tags in text', () => {
    expect(convertContent('# T\n\n- a\n- **b**', 'markdown', 'html')).toBe(
      '<h1>T</h1>\n<ul>\n<li>a</li>\n<li><strong>b</strong></li>\n</ul>',
    );
    expect(convertContent('<h1>T</h1><p>x &amp; <b>y</b></p>', 'html', 'text')).toBe('T\n\nx & y');
    expect(convertContent('a < b\nc', 'text', 'html')).toBe('a &lt; b<br>\nc');
  });
});

describe('fillPlaceholders()', () => {
  const defs = [
    { key: 'a', label: 'A' },
    { key: 'b', label: 'B', default: 'dflt' },
  ];

  it('fillPlaceholders() replaces one level only, whatever the values hold', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (va, vb) => {
        const out = fillPlaceholders('[{{a}}][{{b}}]', defs, { a: va, b: vb }, 'text');
        expect(out).toBe(`[${va}][${vb}]`);
      }),
    );
  });

  it('fillPlaceholders() uses defaults and keeps undefined or valueless markers', () => {
    expect(fillPlaceholders('{{a}} {{b}} {{zz}}', defs, {}, 'markdown')).toBe('{{a}} dflt {{zz}}');
  });

  it('fillPlaceholders() escapes values in HTML only', () => {
    expect(fillPlaceholders('{{a}}', defs, { a: '<i>"&\'' }, 'html')).toBe(
      '&lt;i&gt;&quot;&amp;&#39;',
    );
    expect(fillPlaceholders('{{a}}', defs, { a: '<i>' }, 'markdown')).toBe('<i>');
  });
});

describe('filledLength()', () => {
  const defs = [
    { key: 'a', label: 'A' },
    { key: 'b', label: 'B', default: 'dflt' },
    { key: 'c', label: 'C' },
  ];
  const piece = fc.constantFrom(
    '{{a}}',
    '{{ a }}',
    '{{b}}',
    '{{c}}',
    '{{zz}}',
    '{{',
    '}}',
    'x',
    '<&>',
    '"\'',
  );

  it('filledLength() is the length fillPlaceholders returns, for any content, values and format', () => {
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 30 }).map((parts) => parts.join('')),
        fc.dictionary(fc.constantFrom('a', 'b', 'zz'), fc.string()),
        fc.constantFrom('text' as const, 'html' as const, 'markdown' as const),
        (content, values, format) => {
          expect(filledLength(content, defs, values, format)).toBe(
            fillPlaceholders(content, defs, values, format).length,
          );
        },
      ),
    );
  });

  it('filledLength() sizes a repeated marker without building the result', () => {
    const value = 'v'.repeat(200_000);
    // Filling this would build a 2,000,000,000-character string (past V8's string limit).
    expect(filledLength('{{a}}'.repeat(10_000), defs, { a: value }, 'text')).toBe(2_000_000_000);
  });
});
