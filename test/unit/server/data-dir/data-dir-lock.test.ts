import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  acquireDataDirLock,
  DataDirLockedError,
  LOCK_FILE,
  writtenBeforeBoot,
  type DataDirLock,
} from '../../../../server/data-dir/lock';

/** A machine up for an hour: it booted at NOW - 1 h. */
const NOW = Date.now();
const UPTIME_S = 3_600;
const BOOTED_AT = NOW - UPTIME_S * 1000;
const clock = { now: () => NOW, uptimeSeconds: () => UPTIME_S };

/** The test runner that started this worker: a process that is certainly alive and not us. */
const livePid = process.ppid;

let dir: string;
let lockFile: string;
const held: DataDirLock[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'herald-lock-'));
  lockFile = join(dir, LOCK_FILE);
});

afterEach(() => {
  // Also clears the process-wide record of held locks, which would leak into the next test.
  for (const lock of held.splice(0)) lock.release();
  rmSync(dir, { recursive: true, force: true });
});

function acquire(options?: Parameters<typeof acquireDataDirLock>[1]): DataDirLock {
  const lock = acquireDataDirLock(dir, options);
  held.push(lock);
  return lock;
}

/** A lock file naming `pid`, last written at `writtenAtMs`. */
function lockOf(pid: number, writtenAtMs: number): void {
  writeFileSync(lockFile, `${pid}\n`);
  utimesSync(lockFile, writtenAtMs / 1000, writtenAtMs / 1000);
}

const lockPid = (): string => readFileSync(lockFile, 'utf8').split('\n', 1)[0]!;

function refusal(run: () => unknown): DataDirLockedError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(DataDirLockedError);
    return err as DataDirLockedError;
  }
  throw new Error('expected DataDirLockedError, nothing was thrown');
}

describe('writtenBeforeBoot', () => {
  const now = 1_725_800_000_000;
  const bootedAt = now - 100 * 1000;

  it('writtenBeforeBoot() is true for a file written more than 5 s before the boot', () => {
    expect(writtenBeforeBoot(bootedAt - 5_001, now, 100)).toBe(true);
    expect(writtenBeforeBoot(bootedAt - 86_400_000, now, 100)).toBe(true);
  });

  it('writtenBeforeBoot() allows 5 s of slack around a boot time only known roughly', () => {
    expect(writtenBeforeBoot(bootedAt - 5_000, now, 100)).toBe(false);
    expect(writtenBeforeBoot(bootedAt, now, 100)).toBe(false);
  });

  it('writtenBeforeBoot() is false for a file written since the boot', () => {
    expect(writtenBeforeBoot(bootedAt + 1, now, 100)).toBe(false);
    expect(writtenBeforeBoot(now, now, 100)).toBe(false);
  });

  it('writtenBeforeBoot() takes a fractional uptime as it comes', () => {
    // Booted at now - 100.5 s: 5.4 s before that is past the slack, 4.6 s is not.
    expect(writtenBeforeBoot(now - 105_900, now, 100.5)).toBe(true);
    expect(writtenBeforeBoot(now - 105_100, now, 100.5)).toBe(false);
  });
});

describe('acquireDataDirLock', () => {
  it('acquireDataDirLock() writes our pid into a fresh lock file, then which program and since when', () => {
    const lock = acquire(clock);

    expect(lock.file).toBe(lockFile);
    expect(lockPid()).toBe(String(process.pid));
    const [, name, started] = readFileSync(lockFile, 'utf8').split('\n');
    expect(name).toBe(
      `name=${path
        .basename(process.execPath)
        .replace(/\.exe$/i, '')
        .toLowerCase()}`,
    );
    const startedAt = Number(started!.replace('started=', ''));
    expect(Math.abs(startedAt - (Date.now() - process.uptime() * 1000))).toBeLessThan(1_000);
  });

  it('acquireDataDirLock() takes over a live pid that is now another program (Windows Fast Startup keeps the uptime)', () => {
    // Written since the "boot" by the uptime's account, as after a Fast Startup shutdown; the
    // pid is alive, and the OS says it is another program, or the same one started later.
    for (const live of [
      { name: 'svchost', startedAtMs: NOW - 60_000 },
      { name: 'node', startedAtMs: NOW - 60_000 },
    ]) {
      writeFileSync(lockFile, `${livePid}\nname=node\nstarted=${NOW - 3_000_000}\n`);
      const lock = acquire({ ...clock, identityOf: () => live });
      expect(lockPid()).toBe(String(process.pid));
      lock.release();
    }
  });

  it('acquireDataDirLock() refuses the same program, and a pid the OS cannot describe', () => {
    writeFileSync(lockFile, `${livePid}\nname=node\nstarted=${NOW - 3_000_000}\n`);
    const asked: number[] = [];

    const same = refusal(() =>
      acquire({
        ...clock,
        identityOf: (pid) => (asked.push(pid), { name: 'node', startedAtMs: NOW - 2_995_000 }),
      }),
    );
    expect([same.pid, asked]).toEqual([livePid, [livePid]]);
    expect(refusal(() => acquire({ ...clock, identityOf: () => null })).pid).toBe(livePid);
    // An older Herald's lock says nothing but the pid: alive is held, as before.
    writeFileSync(lockFile, `${livePid}\n`);
    const never = (): never => {
      throw new Error('an identity-less lock needs no look-up');
    };
    expect(refusal(() => acquire({ ...clock, identityOf: never })).pid).toBe(livePid);
  });

  it('acquireDataDirLock() takes over a live pid’s lock written before the last boot', () => {
    // The pid is alive, but no process of the earlier boot is: the OS gave it away since.
    lockOf(livePid, BOOTED_AT - 60_000);

    acquire(clock);

    expect(lockPid()).toBe(String(process.pid));
  });

  it('acquireDataDirLock() refuses a live pid’s lock written since the boot and leaves it alone', () => {
    const writtenAt = BOOTED_AT + 60_000;
    lockOf(livePid, writtenAt);

    const err = refusal(() => acquire(clock));

    expect(err.pid).toBe(livePid);
    expect(err.dataDir).toBe(dir);
    expect(err.message).toContain(`pid ${livePid}`);
    expect(lockPid()).toBe(String(livePid));
    expect(Math.round(statSync(lockFile).mtimeMs)).toBe(writtenAt);
  });

  it('acquireDataDirLock() refuses a live pid’s lock just inside the boot-time slack', () => {
    lockOf(livePid, BOOTED_AT - 4_000);

    expect(refusal(() => acquire(clock)).pid).toBe(livePid);
  });

  it('acquireDataDirLock() with takeOver replaces a live pid’s lock written since the boot', () => {
    lockOf(livePid, BOOTED_AT + 60_000);

    acquire({ ...clock, takeOver: true });

    expect(lockPid()).toBe(String(process.pid));
  });

  it('acquireDataDirLock() with takeOver never replaces a lock this same process holds', () => {
    acquire(clock);

    const err = refusal(() => acquire({ ...clock, takeOver: true }));

    expect(err.pid).toBe(process.pid);
    expect(lockPid()).toBe(String(process.pid));
  });

  it('acquireDataDirLock() refuses a second lock in the same process without takeOver too', () => {
    acquire(clock);

    expect(refusal(() => acquire(clock)).pid).toBe(process.pid);
  });

  it('release() removes our lock and can be called again', () => {
    const lock = acquireDataDirLock(dir, clock);

    lock.release();
    expect(existsSync(lockFile)).toBe(false);
    expect(() => lock.release()).not.toThrow();
  });

  it('release() leaves a lock that is no longer ours', () => {
    const lock = acquireDataDirLock(dir, clock);
    // Another Herald took the folder over meanwhile (a takeOver, or ours judged stale).
    writeFileSync(lockFile, `${livePid}\n`);

    lock.release();

    expect(lockPid()).toBe(String(livePid));
  });

  it('release() lets the same process take the folder again', () => {
    acquireDataDirLock(dir, clock).release();

    acquire(clock);

    expect(lockPid()).toBe(String(process.pid));
  });
});
