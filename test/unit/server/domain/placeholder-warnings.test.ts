import { describe, expect, it } from 'vitest';

import {
  placeholderWarnings,
  type PlaceholderSource,
} from '../../../../server/domain/placeholder-warnings';
import { withRepeats } from '../../../../server/domain/placeholders';

const template = (
  text: string,
  placeholders: Array<{ key: string; default?: string }>,
): PlaceholderSource => ({
  name: 'T',
  text,
  html: null,
  markdown: null,
  placeholders: withRepeats(placeholders.map((p) => ({ label: p.key, ...p }))),
});
const kinds = (t: PlaceholderSource, values: Record<string, string>) =>
  placeholderWarnings(t, values).map((w) => `${w.kind}:${w.key}`);

describe('placeholderWarnings', () => {
  it('reads markers as a send fills them: spaces inside the braces, keys of any script', () => {
    const t = template('{{ 服务名 }} {{host}}', [{ key: '服务名' }, { key: 'host' }]);
    expect(kinds(t, { 服务名: 'Herald', host: 'db' })).toEqual([]);
    expect(kinds(t, { host: 'db' })).toEqual(['noValue:服务名']);
  });

  it('an empty default is a default, and an empty value is a value', () => {
    const t = template('{{a}}{{b}}', [{ key: 'a', default: '' }, { key: 'b' }]);
    expect(kinds(t, { b: '' })).toEqual([]);
  });

  it('a declared key no body uses needs no value; {{repeats}} is every template’s', () => {
    const t = template('{{repeats}} repeats', [{ key: 'unused' }]);
    expect(kinds(t, {})).toEqual([]);
    expect(kinds(t, { repeats: '3' })).toEqual([]);
  });

  it('looks at every body, each marker once', () => {
    const t = {
      ...template('{{x}} {{x}}', []),
      html: '<b>{{y}}</b>',
      markdown: '**{{x}}**',
    };
    expect(kinds(t, { z: '1' })).toEqual([
      'notDeclared:z',
      'markerNotDeclared:x',
      'markerNotDeclared:y',
    ]);
    expect(placeholderWarnings(t, { z: '1' })[0].message).toBe(
      'placeholder "z" is not declared by template "T" (it declares: none), so its value is not used',
    );
  });
});
