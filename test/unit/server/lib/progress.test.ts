import { describe, expect, it } from 'vitest';

import { groupDigits, percentOf, progressLine, rowProgress } from '../../../../server/lib/progress';

describe('row progress', () => {
  it('prints rows done of the total with a percentage, digits grouped by spaces', () => {
    expect(progressLine('sends', 12_000, 48_210)).toBe('sends: 12 000 / 48 210 rows (24 %)');
    expect(groupDigits(0)).toBe('0');
    expect(groupDigits(999)).toBe('999');
    expect(groupDigits(1_000)).toBe('1 000');
    expect(groupDigits(1_234_567)).toBe('1 234 567');
  });

  it('rounds down, so only every row is 100 %; an empty table is complete', () => {
    expect(percentOf(999, 1000)).toBe(99);
    expect(percentOf(1000, 1000)).toBe(100);
    expect(percentOf(0, 1000)).toBe(0);
    expect(percentOf(0, 0)).toBe(100);
    expect(percentOf(12, 10)).toBe(100);
  });

  it('prints at most a line per interval, always each table’s last line and a closing line', () => {
    const lines: string[] = [];
    let clock = 0;
    const progress = rowProgress({
      write: (l) => lines.push(l),
      now: () => clock,
      intervalMs: 1000,
    });
    const sends = progress.table('sends', 5000);
    for (let done = 1000; done <= 5000; done += 1000) {
      clock += 600;
      sends.advance(done);
    }
    sends.finish(5000);
    // At 600 ms nothing; at 1200 ms a line, which restarts the interval; at 2400 ms the next.
    expect(lines).toEqual([
      'sends: 2 000 / 5 000 rows (40 %)',
      'sends: 4 000 / 5 000 rows (80 %)',
      'sends: 5 000 / 5 000 rows (100 %)',
    ]);

    lines.length = 0;
    const users = progress.table('users', 1);
    users.advance(1);
    users.finish();
    users.finish();
    progress.table('empty', 0).finish(0);
    progress.done();
    expect(lines).toEqual([
      'users: 1 / 1 rows (100 %)',
      'empty: 0 / 0 rows (100 %)',
      'done, 3 tables: 5 001 / 5 001 rows (100 %)',
    ]);
  });
});
