import { describe, expect, it } from 'vitest';

import type { ContentType } from '../../../../server/channels/channel-adapter';
import type { PlaceholderDefinition } from '../../../../server/db/models/template';
import {
  filledLength,
  fillPlaceholders,
  normalisePlaceholderValues,
} from '../../../../server/domain/placeholders';

const def = (key: string, dflt?: string | null): PlaceholderDefinition =>
  ({ key, label: key, default: dflt }) as PlaceholderDefinition;

describe('fillPlaceholders', () => {
  it('escapes every HTML-special character of a value in HTML content only', () => {
    const defs = [def('v')];
    const value = `a&b<c>d"e'f`;
    expect(fillPlaceholders('[{{v}}]', defs, { v: value }, 'html')).toBe(
      '[a&amp;b&lt;c&gt;d&quot;e&#39;f]',
    );
    expect(fillPlaceholders('[{{v}}]', defs, { v: value }, 'markdown')).toBe(`[${value}]`);
    expect(fillPlaceholders('[{{v}}]', defs, { v: value }, 'text')).toBe(`[${value}]`);
  });

  it('fills one content again and again with other values, definitions and formats', () => {
    // A template's body is split at its markers once and the split reused: nothing of one
    // fill may leak into the next.
    const content = 'x {{a}} y {{ b }} {{a}} {{c}}';
    for (let i = 0; i < 3; i++) {
      expect(fillPlaceholders(content, [def('a'), def('b')], { a: `<${i}>`, b: 'B' }, 'html')).toBe(
        `x &lt;${i}&gt; y B &lt;${i}&gt; {{c}}`,
      );
      expect(fillPlaceholders(content, [def('c', 'C')], { a: 'A' }, 'text')).toBe(
        'x {{a}} y {{ b }} {{a}} C',
      );
      expect(filledLength(content, [def('a'), def('b')], { a: `<${i}>`, b: 'B' }, 'html')).toBe(
        `x &lt;${i}&gt; y B &lt;${i}&gt; {{c}}`.length,
      );
    }
  });

  it('takes the passed value over the default, the default when none is passed', () => {
    const defs = [def('a', 'A-default'), def('b', 'B-default')];
    expect(fillPlaceholders('{{a}}/{{b}}', defs, { a: 'given' }, 'text')).toBe('given/B-default');
  });

  it('uses an empty passed value rather than the default', () => {
    expect(fillPlaceholders('<{{a}}>', [def('a', 'D')], { a: '' }, 'text')).toBe('<>');
  });

  it('leaves the marker when the key has neither value nor default (null or absent)', () => {
    const defs = [def('n', null), def('u')];
    expect(fillPlaceholders('{{n}} {{ u }}', defs, {}, 'text')).toBe('{{n}} {{ u }}');
  });

  it('leaves an undefined key as written even when a value is passed for it', () => {
    expect(fillPlaceholders('{{x}}', [def('y')], { x: 'X' }, 'text')).toBe('{{x}}');
  });

  it('does not take inherited properties of the values object for a passed value', () => {
    // `constructor` and `toString` exist on every object's prototype; only own keys count.
    const defs = [def('constructor', 'C'), def('toString')];
    expect(fillPlaceholders('{{constructor}}|{{toString}}', defs, {}, 'text')).toBe(
      'C|{{toString}}',
    );
  });

  it('tolerates inner spaces and accepts letters of any script, digits, `_`, `.` and `-`', () => {
    const defs = [def('服务名'), def('a.b-c_1')];
    const values = { 服务名: 'svc', 'a.b-c_1': 'k' };
    expect(fillPlaceholders('{{  服务名 }}:{{a.b-c_1}}', defs, values, 'text')).toBe('svc:k');
  });

  it('does not treat other characters as part of a key', () => {
    const defs = [def('a b'), def('a/b'), def('a')];
    expect(fillPlaceholders('{{a b}} {{a/b}} {{}}', defs, { 'a b': 'x', 'a/b': 'y' }, 'text')).toBe(
      '{{a b}} {{a/b}} {{}}',
    );
  });
});

describe('filledLength', () => {
  const cases: [string, PlaceholderDefinition[], Record<string, string>, ContentType][] = [
    ['{{v}} and {{v}} and {{ v }}', [def('v')], { v: `&<>"'x` }, 'html'],
    ['{{v}} and {{v}}', [def('v')], { v: `&<>"'x` }, 'text'],
    ['{{v}}', [def('v')], { v: '&' }, 'html'],
    ['{{v}}', [def('v')], { v: '<' }, 'html'],
    ['{{v}}', [def('v')], { v: '>' }, 'html'],
    ['{{v}}', [def('v')], { v: '"' }, 'html'],
    ['{{v}}', [def('v')], { v: "'" }, 'html'],
    ['{{v}}', [def('v')], { v: 'plain' }, 'html'],
    ['{{ a }}{{b}}{{c}}', [def('a', 'AAAA'), def('b', null)], {}, 'markdown'],
    ['{{a}}{{a}}', [def('a', 'long default value')], { a: '' }, 'text'],
    ['{{constructor}}', [def('constructor')], {}, 'text'],
    ['no markers at all', [], {}, 'text'],
    ['{{服务名}}!', [def('服务名')], { 服务名: '服务' }, 'html'],
  ];

  it.each(cases)('equals the filled length for %j', (content, defs, values, format) => {
    const filled = fillPlaceholders(content, defs, values, format);
    expect(filledLength(content, defs, values, format)).toBe(filled.length);
  });

  it('counts each escaped character exactly', () => {
    const defs = [def('v')];
    expect(filledLength('{{v}}', defs, { v: '&' }, 'html')).toBe(5);
    expect(filledLength('{{v}}', defs, { v: '<' }, 'html')).toBe(4);
    expect(filledLength('{{v}}', defs, { v: '>' }, 'html')).toBe(4);
    expect(filledLength('{{v}}', defs, { v: '"' }, 'html')).toBe(6);
    expect(filledLength('{{v}}', defs, { v: "'" }, 'html')).toBe(5);
    expect(filledLength('{{v}}', defs, { v: 'ab' }, 'html')).toBe(2);
  });

  it('keeps the marker length for a key that stays as written, every time it repeats', () => {
    expect(filledLength('{{x}}{{x}}{{ x }}', [def('x')], {}, 'text')).toBe(17);
  });
});

describe('normalisePlaceholderValues', () => {
  it('shows numbers, booleans and objects as text and drops null and undefined', () => {
    expect(
      normalisePlaceholderValues({
        s: 'text',
        n: 42,
        f: 1.5,
        b: false,
        o: { a: 1 },
        l: [1, 'x'],
        z: null,
        u: undefined,
        e: '',
        big: 12345678901234567890n,
      }),
    ).toStrictEqual({
      s: 'text',
      n: '42',
      f: '1.5',
      b: 'false',
      o: '{"a":1}',
      l: '[1,"x"]',
      e: '',
      big: '12345678901234567890',
    });
  });
});
