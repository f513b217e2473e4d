import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { acquireDataDirLock, LOCK_FILE, runningHeraldPid } from '../../../../server/data-dir/lock';

/** A machine up for an hour. */
const NOW = Date.now();
const clock = { now: () => NOW, uptimeSeconds: () => 3_600 };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'herald-running-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('runningHeraldPid', () => {
  it('names the live process whose lock holds the folder, and only while it holds it', () => {
    expect(runningHeraldPid(dir, clock)).toBeNull();
    expect(runningHeraldPid(join(dir, 'missing'), clock)).toBeNull();
    const lock = acquireDataDirLock(dir);
    expect(runningHeraldPid(dir, clock)).toBe(process.pid);
    lock.release();
    expect(runningHeraldPid(dir, clock)).toBeNull();
    // Another live process (the test runner) holding it.
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`);
    expect(runningHeraldPid(dir, clock)).toBe(process.ppid);
  });

  it('ignores a lock whose process is gone, or that was written before the last boot', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(join(dir, LOCK_FILE), `${gone.stdout.toString()}\n`);
    expect(runningHeraldPid(dir, clock)).toBeNull();

    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`);
    const beforeBoot = (NOW - 2 * 3_600_000) / 1000;
    utimesSync(join(dir, LOCK_FILE), beforeBoot, beforeBoot);
    expect(runningHeraldPid(dir, clock)).toBeNull();
    writeFileSync(join(dir, LOCK_FILE), 'not a pid\n');
    expect(runningHeraldPid(dir, clock)).toBeNull();
  });
});
