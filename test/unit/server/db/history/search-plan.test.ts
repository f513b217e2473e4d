import { describe, expect, it } from 'vitest';

import { ftsPhrase, likePattern, planSearch } from '../../../../../server/db/history/search-plan';

describe('planSearch', () => {
  it('answers 3 characters or more with one FTS5 phrase, quotes doubled', () => {
    expect(planSearch('数据库延迟')).toEqual({ kind: 'phrase', match: '"数据库延迟"' });
    expect(planSearch('say "hi" OR *')).toEqual({ kind: 'phrase', match: '"say ""hi"" OR *"' });
  });

  it('answers 2 characters with the range of trigrams that start with them, lower-cased', () => {
    expect(planSearch('告警')).toEqual({ kind: 'prefix', from: '告警', below: '告譧' });
    expect(planSearch('DB')).toEqual({ kind: 'prefix', from: 'db', below: 'dc' });
  });

  it('counts characters, not UTF-16 units', () => {
    expect(planSearch('😀a')).toMatchObject({ kind: 'prefix', from: '😀a' });
    expect(planSearch('😀')).toMatchObject({ kind: 'scan' });
  });

  it('scans single characters and queries the index cannot answer exactly', () => {
    expect(planSearch('告')).toEqual({ kind: 'scan', like: '%告%' });
    expect(planSearch('a\u0001b')).toEqual({ kind: 'scan', like: '%a\u0001b%' });
    // İ lower-cases to two characters: a prefix of the folded index would be wrong.
    expect(planSearch('İx')).toMatchObject({ kind: 'scan' });
  });
});

describe('likePattern and ftsPhrase', () => {
  it('make % _ and \\ plain characters', () => {
    expect(likePattern('100%_a\\b')).toBe('%100\\%\\_a\\\\b%');
  });
  it('quote a phrase', () => {
    expect(ftsPhrase('a"b')).toBe('"a""b"');
  });
});
