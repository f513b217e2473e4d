import { describe, expect, it } from 'vitest';

import { escapeRegexLiterals } from '../../../scripts/ascii-regex-literals.mjs';

/** Evaluates a module-free expression source, as the bundle's own code would run it. */
const evaluate = (source: string): unknown => new Function(`return (${source});`)();

describe('escapeRegexLiterals (the server bundle stays ASCII)', () => {
  const cases: Array<{ literal: string; samples: string[] }> = [
    { literal: '/^[A-ZÄÖÜß]+$/i', samples: ['ÄRGER', 'straße', 'ABC', 'A-B', 'é'] },
    { literal: '/^[ابپتثجچ]+$/', samples: ['اب', 'a', 'تث', ''] },
    { literal: '/[中文]+/g', samples: ['说中文', 'english', '文'] },
    // Astral characters: two code units without the u flag, one code point with it.
    { literal: '/^😀$/', samples: ['😀', '\ud83d', 'x'] },
    { literal: '/^[😀-😂]$/u', samples: ['😁', '😃', '\ude00', '😀'] },
    { literal: '/^.$/u', samples: ['😀', 'ab'] },
    // An identity escape of a non-ASCII character, and an escaped backslash before one.
    { literal: '/\\é/', samples: ['é', '\\é', 'e'] },
    { literal: '/\\\\é/', samples: ['\\é', 'é'] },
    { literal: '/[^\\s─]+/', samples: ['──', 'a─b', ' '] },
  ];

  it.each(cases)(
    '$literal matches what it matched before, spelled in ASCII',
    ({ literal, samples }) => {
      const { source, leftNonAscii } = escapeRegexLiterals(`const r = ${literal};`);
      expect(leftNonAscii).toBe(0);
      expect(source).not.toMatch(/[\u0080-\uffff]/);
      const escaped = source.slice('const r = '.length, -1);
      const before = evaluate(literal) as RegExp;
      const after = evaluate(escaped) as RegExp;
      expect(after.flags).toBe(before.flags);
      for (const sample of samples) {
        expect(sample.match(after), sample).toEqual(sample.match(before));
      }
    },
  );

  it('leaves strings, templates and division alone, and counts what it could not escape', () => {
    const input = [
      'const a = x / 2 / y;',
      'const b = "中文";',
      'const c = `模板 ${a / 2}`;',
      'const d = String.raw`原样`;',
      '/* 注释 */ const e = /ß/;',
    ].join('\n');
    const { source, leftNonAscii } = escapeRegexLiterals(input);
    expect(source).toBe(input.replace('/ß/', '/\\u00df/'));
    // 中文 (2) + 模板 (2) + 原样 (2) + 注释 (2): only regex literals are rewritten.
    expect(leftNonAscii).toBe(8);
  });
});
