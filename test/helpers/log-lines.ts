import { vi } from 'vitest';

import { addLogSink } from '../../server/lib/logger';

/**
 * Herald's log lines from `level` up, kept for the test to read: the logger is quiet under tests,
 * so the level is raised for the test's time, and the lines go to the list, not the terminal.
 * `restore()` puts the level, the sink and the console back. `lines` may be the test's own list.
 */
export function keepLogLines(
  level: 'warn' | 'error' = 'warn',
  lines: string[] = [],
): {
  lines: string[];
  restore(): void;
} {
  const before = process.env.HERALD_LOG;
  process.env.HERALD_LOG = level;
  const mute = vi.spyOn(console, 'error').mockImplementation(() => {});
  const removeSink = addLogSink((line) => lines.push(line));
  return {
    lines,
    restore() {
      removeSink();
      mute.mockRestore();
      if (before === undefined) delete process.env.HERALD_LOG;
      else process.env.HERALD_LOG = before;
    },
  };
}
