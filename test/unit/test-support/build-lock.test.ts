import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { withBuildLock } from '../../helpers/build-lock';

const lockOf = (name: string) => path.resolve('out', `.${name}-build.lock`);

describe('withBuildLock', () => {
  it('runs one build at a time: a second caller waits for the first to finish', async () => {
    const name = `test-serial-${process.pid}`;
    const steps: string[] = [];
    const build = (id: string) => async () => {
      steps.push(`${id} start`);
      expect(existsSync(lockOf(name))).toBe(true);
      await new Promise((r) => setTimeout(r, 50));
      steps.push(`${id} end`);
      return id;
    };
    const answers = await Promise.all([
      withBuildLock(name, build('a')),
      withBuildLock(name, build('b')),
    ]);
    expect(answers).toEqual(['a', 'b']);
    expect(steps).toEqual(['a start', 'a end', 'b start', 'b end']);
    expect(existsSync(lockOf(name))).toBe(false);
  });

  it('takes over a lock whose process is gone, and lets go of it when the build throws', async () => {
    const name = `test-dead-${process.pid}`;
    mkdirSync(path.dirname(lockOf(name)), { recursive: true });
    // No process has this pid (above Linux's pid_max).
    writeFileSync(lockOf(name), '99999999');
    await expect(
      withBuildLock(name, async () => {
        throw new Error('the build failed');
      }),
    ).rejects.toThrow('the build failed');
    expect(existsSync(lockOf(name))).toBe(false);
  });
});
