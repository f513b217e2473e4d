import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import {
  sqliteTempDirCandidates,
  sqliteTempDirProblem,
  usableTempDir,
} from '../../../../server/db/sqlite-temp-dir';

describe('SQLite’s folder for temporary files', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'herald-sqlite-tmp-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('tries the folders in SQLite’s order, the variables first', () => {
    expect(sqliteTempDirCandidates({ SQLITE_TMPDIR: '/a', TMPDIR: '/b' }, '/app')).toEqual([
      '/a',
      '/b',
      '/var/tmp',
      '/usr/tmp',
      '/tmp',
      '/app',
    ]);
    expect(sqliteTempDirCandidates({ TMPDIR: '' }, '/app')).toEqual([
      '/var/tmp',
      '/usr/tmp',
      '/tmp',
      '/app',
    ]);
  });

  it('a folder counts only if it exists, is a folder and may be written', () => {
    expect(usableTempDir(scratch)).toBe(true);
    expect(usableTempDir(join(scratch, 'missing'))).toBe(false);
    const file = join(scratch, 'a-file');
    writeFileSync(file, '');
    expect(usableTempDir(file)).toBe(false);
  });

  it('says what to do when none of them can be written, as in a read-only container', () => {
    const readOnly = () => false;
    const problem = sqliteTempDirProblem({}, '/app', readOnly, 'linux');
    expect(problem).toContain('tried /var/tmp, /usr/tmp, /tmp, /app');
    expect(problem).toContain('--tmpfs /tmp');
    expect(problem).toContain('SQLITE_TMPDIR');
    // One usable folder is enough, wherever it comes in the order.
    const onlyTmp = (dir: string) => dir === '/tmp';
    expect(sqliteTempDirProblem({}, '/app', onlyTmp, 'linux')).toBeNull();
    expect(
      sqliteTempDirProblem({ SQLITE_TMPDIR: scratch }, '/app', usableTempDir, 'linux'),
    ).toBeNull();
    expect(sqliteTempDirProblem({}, '/app', readOnly, 'win32')).toBeNull();
  });
});
