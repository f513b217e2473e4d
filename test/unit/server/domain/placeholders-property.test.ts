import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { ContentType } from '../../../../server/channels/channel-adapter';
import { fillPlaceholders } from '../../../../server/domain/placeholders';

interface Definition {
  key: string;
  label: string;
  default?: string;
}

// Letters and digits of any script (Chinese included), `_`, `.` and `-`; one code point each.
const isKeyChar = (ch: string) => /^[\p{L}\p{N}_.-]$/u.test(ch);
const isSpace = (ch: string) => /^\s$/.test(ch);
const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escape = (s: string) => [...s].map((c) => ENTITY[c] ?? c).join('');

/**
 * The contract's placeholder rules, written as a plain left-to-right scan: a marker is `{{`,
 * optional spaces, a key, optional spaces, `}}`; one level only (a value is never scanned
 * again); a passed value beats the default; a key with neither, or one the template does not
 * define, stays as written; HTML content gets escaped values.
 */
function referenceFill(
  content: string,
  defs: readonly Definition[],
  values: Record<string, string>,
  format: ContentType,
): string {
  // Scanned by code points, so a letter outside the BMP (a surrogate pair) is one character.
  const chars = [...content];
  const startsWith = (s: string, at: number) => [...s].every((c, k) => chars[at + k] === c);
  const slice = (from: number, to: number) => chars.slice(from, to).join('');
  let out = '';
  let i = 0;
  while (i < chars.length) {
    if (startsWith('{{', i)) {
      let keyStart = i + 2;
      while (keyStart < chars.length && isSpace(chars[keyStart])) keyStart++;
      let keyEnd = keyStart;
      while (keyEnd < chars.length && isKeyChar(chars[keyEnd])) keyEnd++;
      let close = keyEnd;
      while (close < chars.length && isSpace(chars[close])) close++;
      if (keyEnd > keyStart && startsWith('}}', close)) {
        const key = slice(keyStart, keyEnd);
        const marker = slice(i, close + 2);
        const def = defs.find((d) => d.key === key);
        let value: string | undefined;
        if (def && Object.keys(values).includes(key)) value = values[key];
        else if (def && def.default != null) value = def.default;
        out += value === undefined ? marker : format === 'html' ? escape(value) : value;
        i = close + 2;
        continue;
      }
    }
    out += chars[i];
    i++;
  }
  return out;
}

const keys = [
  'host',
  'pct',
  'a.b',
  'x-y',
  'z_1',
  '服务名',
  '告警级别',
  'ключ',
  '𠀀字',
  'n①',
  'missing',
];
const key = fc.constantFrom(...keys);
const spaces = fc.constantFrom('', ' ', '  ', '\t');
const marker = fc
  .tuple(spaces, key, spaces)
  .map(([before, k, after]) => `{{${before}${k}${after}}}`);
// Non-ASCII noise glues onto keys: letters of other scripts, a letter outside the BMP, a
// digit-like number, a combining mark (not a key character) and full-width braces.
const noise = fc.constantFrom(
  '{',
  '}',
  '{{',
  '}}',
  '{ {',
  ' ',
  '<b>',
  '&',
  '"',
  "'",
  'é',
  '告警',
  '名',
  '𠀀',
  '②',
  'e\u0301',
  '｛｛',
);
const text = fc.string({ maxLength: 6 });
const content = fc
  .array(fc.oneof(marker, noise, text), { maxLength: 12 })
  .map((parts) => parts.join(''));
// Values may themselves hold markers and HTML: they must be inserted as they are, once.
const value = fc
  .array(fc.oneof(marker, noise, text), { maxLength: 4 })
  .map((parts) => parts.join(''));
const definitions = fc.uniqueArray(
  fc.record(
    {
      key: fc.constantFrom(...keys.filter((k) => k !== 'missing')),
      label: fc.constant('L'),
      default: fc.option(value, { nil: undefined }),
    },
    { requiredKeys: ['key', 'label'] },
  ),
  { selector: (d) => d.key, maxLength: 5 },
);
const values = fc.dictionary(key, value, { maxKeys: 5 });
const format = fc.constantFrom<ContentType>('text', 'markdown', 'html');

describe('fillPlaceholders() against a reference implementation', () => {
  it('fillPlaceholders() agrees with the reference on generated templates and values', () => {
    fc.assert(
      fc.property(content, definitions, values, format, (c, defs, vals, f) => {
        expect(fillPlaceholders(c, defs, vals, f)).toBe(referenceFill(c, defs, vals, f));
      }),
      { numRuns: 2000 },
    );
  });

  it('the reference itself follows the documented examples', () => {
    const defs = [
      { key: 'host', label: 'H' },
      { key: 'pct', label: 'P', default: '?' },
    ];
    expect(referenceFill('{{host}} at {{ pct }}% {{other}}', defs, { host: 'web-3' }, 'text')).toBe(
      'web-3 at ?% {{other}}',
    );
    expect(referenceFill('{{host}}', defs, { host: '{{pct}}' }, 'text')).toBe('{{pct}}');
    expect(referenceFill('<p>{{host}}</p>', defs, { host: '<b>&' }, 'html')).toBe(
      '<p>&lt;b&gt;&amp;</p>',
    );
    expect(referenceFill('{{{host}}}', defs, { host: 'x' }, 'text')).toBe('{x}');
    const zh = [{ key: '服务名', label: '服务' }];
    expect(referenceFill('{{服务名}} 宕机 {{ 服务名 }}', zh, { 服务名: 'api' }, 'text')).toBe(
      'api 宕机 api',
    );
  });

  it('fillPlaceholders() fills Chinese keys, spaced or not, and leaves undefined ones', () => {
    const defs = [
      { key: '服务名', label: '服务' },
      { key: '级别', label: '级别', default: '警告' },
    ];
    expect(
      fillPlaceholders('{{服务名}}：{{ 级别 }} {{未定义}}', defs, { 服务名: '支付' }, 'text'),
    ).toBe('支付：警告 {{未定义}}');
  });
});
