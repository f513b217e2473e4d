import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import {
  databaseBytes,
  scratchFolderFor,
  type FreeSpace,
} from '../../../../server/data-dir/scratch-folder';
import { openSourceSnapshot } from '../../../../server/features/move-to-postgres/source-folder';
import { MoveRefused } from '../../../../server/features/move-to-postgres/move-refused';

const GB = 1024 ** 3;

describe('the scratch folder for a working copy of the database', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-scratch-data-'));
    made.push(dir);
    return dir;
  };
  /** statfs as a full tmpfs answers it: the temp folder has `tmp` bytes, anything else `data`. */
  const freeAs =
    (tmp: number, data: number): FreeSpace =>
    (dir) =>
      dir === tmpdir() ? tmp : data;

  it('is in the temp folder when that has room for the copy and some to work in', () => {
    const folder = scratchFolderFor('herald-move-', 2 * GB, dataDir(), freeAs(3 * GB, 0));
    made.push(folder);
    expect(dirname(folder)).toBe(tmpdir());
    expect(basename(folder)).toMatch(/^herald-move-/);
    expect(existsSync(folder)).toBe(true);
  });

  it('is a hidden folder in the data folder when the temp folder (a small tmpfs) has too little', () => {
    const data = dataDir();
    // 2 GB free is not room for a 2 GB copy and the work on it.
    const folder = scratchFolderFor('herald-move-', 2 * GB, data, freeAs(2 * GB, 10 * GB));
    expect(dirname(folder)).toBe(data);
    expect(basename(folder)).toMatch(/^\.herald-move-/);
  });

  it('refuses, saying how much each place had and what to do, when neither has room', () => {
    const data = dataDir();
    expect(() => scratchFolderFor('herald-import-', 5 * GB, data, freeAs(GB, 2 * GB))).toThrow(
      new RegExp(
        `5,120 MB.*${tmpdir().replace(/[/\\]/g, '.')} has 1,024 MB free, .*has 2,048 MB free; set TMPDIR`,
      ),
    );
  });

  it('uses the temp folder where statfs cannot tell', () => {
    const folder = scratchFolderFor('herald-move-', GB, dataDir(), () => {
      throw Object.assign(new Error('ENOSYS: function not implemented, statfs'), {
        code: 'ENOSYS',
      });
    });
    made.push(folder);
    expect(dirname(folder)).toBe(tmpdir());
  });

  it("reads this machine's free space for a small copy", () => {
    const folder = scratchFolderFor('herald-move-', 1024, dataDir());
    made.push(folder);
    expect(dirname(folder)).toBe(tmpdir());
  });

  it('counts the database as herald.db and its -wal, if there is one', () => {
    const data = dataDir();
    expect(databaseBytes(data)).toBe(0);
    writeFileSync(join(data, 'herald.db'), Buffer.alloc(4096));
    expect(databaseBytes(data)).toBe(4096);
    writeFileSync(join(data, 'herald.db-wal'), Buffer.alloc(1000));
    expect(databaseBytes(data)).toBe(5096);
  });

  it('stops a move to PostgreSQL before copying anything, with the reason, when there is no room', () => {
    const data = dataDir();
    writeFileSync(join(data, 'herald.db'), Buffer.alloc(4096, 1));
    let refused: unknown;
    try {
      openSourceSnapshot(data, freeAs(0, 0));
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(MoveRefused);
    expect(String((refused as Error).message)).toMatch(/not enough free space .*set TMPDIR/);
  });
});
