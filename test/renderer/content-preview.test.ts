import { describe, expect, it } from 'vitest';

import { excerptLine } from '../../renderer/src/lib/render-content';

// The excerpt's text itself (Markdown rendered, HTML read as text, typed characters kept) is
// the server's: test/unit/server/domain/plain-text.test.ts.
describe('excerptLine() (the reader’s list)', () => {
  it('shows an excerpt that fits as it is', () => {
    expect(excerptLine('db-2 is down on 数据库-主节点: _ ! ( )')).toBe(
      'db-2 is down on 数据库-主节点: _ ! ( )',
    );
    expect(excerptLine('a'.repeat(80))).toBe('a'.repeat(80));
  });

  it('cuts a longer one at a code point, with an ellipsis', () => {
    expect(excerptLine('a'.repeat(100), 10)).toBe('aaaaaaaaa…');
    expect(excerptLine('🎉'.repeat(20), 5)).toBe('🎉🎉🎉🎉…');
    expect(Array.from(excerptLine('数'.repeat(81)))).toHaveLength(80);
  });
});
