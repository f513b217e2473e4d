import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { uptime } from 'node:os';
import { join } from 'node:path';

import { PRIVATE_FILE_MODE } from './permissions';
import {
  ownIdentity,
  processIdentity,
  sameProcess,
  type ProcessIdentity,
} from './process-identity';

export const LOCK_FILE = 'herald.lock';

/** Thrown by startServer when another live Herald holds the data folder. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data folder ${dataDir} is in use by another Herald (pid ${pid}). ` +
        `Stop that one first, or start this one with another --data-dir. ` +
        `If no process ${pid} is running, delete ${join(dataDir, LOCK_FILE)}.`,
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  readonly file: string;
  /** Removes the lock file if it is still ours; safe to call more than once. */
  release(): void;
}

/** Lock files this process holds: a pid equal to ours in any other file is a dead process's. */
const heldByThisProcess = new Set<string>();

/** How the lock treats one it finds. */
export interface LockOptions {
  /**
   * Replace any lock that is not this process's own, live pid or not. For the desktop app only:
   * Electron's single-instance lock already keeps a second desktop Herald away, so a lock found
   * there is a crashed run's whose pid the OS has since given to another program.
   */
  takeOver?: boolean;
  /** The clock and the machine's uptime in seconds, for tests. */
  now?: () => number;
  uptimeSeconds?: () => number;
  /** What the OS says of a live pid (process-identity.ts), for tests. */
  identityOf?: (pid: number) => ProcessIdentity | null;
}

/**
 * Slack for the boot time, which is derived from a whole-second uptime on some systems and a
 * wall clock that NTP may have stepped since boot.
 */
const BOOT_TIME_SLACK_MS = 5_000;

/**
 * writtenBeforeBoot() is true when the lock file was last written before the machine last
 * booted: no process of that boot survives a restart, whatever pid the file names (after an OS
 * shutdown or a power cut the pid is often in use again by then).
 */
export function writtenBeforeBoot(
  writtenAtMs: number,
  nowMs: number,
  uptimeSeconds: number,
): boolean {
  const bootedAtMs = nowMs - uptimeSeconds * 1000;
  return writtenAtMs < bootedAtMs - BOOT_TIME_SLACK_MS;
}

/**
 * Takes the data folder for this process: `herald.lock` holding our pid, created exclusively.
 * A lock whose pid is gone (a crash, a SIGKILL, a container restarted with the same pid) or
 * that was written before the last boot is taken over; a live one refuses with
 * DataDirLockedError before anything is written, unless `options.takeOver` says otherwise.
 */
export function acquireDataDirLock(dataDir: string, options: LockOptions = {}): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  const now = options.now ?? Date.now;
  const uptimeSeconds = options.uptimeSeconds ?? uptime;
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(file)) break;
    const content = readLock(file);
    if (content === null) continue; // Removed between our create and read: try again.
    const pid = parsePid(content);
    const stale =
      (pid !== null && pid !== process.pid && options.takeOver === true) ||
      isWrittenBeforeBoot(file, now(), uptimeSeconds());
    if (!stale && pid !== null && isHeld(content, pid, file, options)) {
      throw new DataDirLockedError(dataDir, pid);
    }
    if (attempt > 3) throw new DataDirLockedError(dataDir, pid ?? 0);
    // Remove the stale lock only if it still holds what we judged stale (another starting
    // process may have just replaced it with its own).
    if (readLock(file) === content) removeQuietly(file);
  }
  heldByThisProcess.add(file);
  const onExit = () => release();
  process.once('exit', onExit);
  let released = false;
  function release() {
    if (released) return;
    released = true;
    process.removeListener('exit', onExit);
    heldByThisProcess.delete(file);
    if (parsePid(readLock(file) ?? '') === process.pid) removeQuietly(file);
  }
  return { file, release };
}

/**
 * The pid of a live Herald holding the data folder, or null: for tools that must not touch a
 * folder in use (restore). A lock whose process is gone, or that was written before the last
 * boot, holds nothing.
 */
export function runningHeraldPid(dataDir: string, options: LockOptions = {}): number | null {
  const file = join(dataDir, LOCK_FILE);
  const content = readLock(file);
  if (content === null) return null;
  const pid = parsePid(content);
  if (pid === null) return null;
  const now = options.now ?? Date.now;
  const uptimeSeconds = options.uptimeSeconds ?? uptime;
  if (isWrittenBeforeBoot(file, now(), uptimeSeconds())) return null;
  return isHeld(content, pid, file, options) ? pid : null;
}

/**
 * Whether the lock's pid still holds it: alive, and, where the lock says which program wrote it
 * and when, still that program. A pid the OS gave to another program since (after a Windows
 * shutdown with Fast Startup, which keeps the uptime) holds nothing.
 */
function isHeld(content: string, pid: number, file: string, options: LockOptions): boolean {
  if (!isLive(pid, file)) return false;
  if (pid === process.pid) return true;
  const recorded = parseIdentity(content);
  if (recorded === null) return true;
  return sameProcess(recorded, (options.identityOf ?? processIdentity)(pid));
}

function isWrittenBeforeBoot(file: string, nowMs: number, uptimeSeconds: number): boolean {
  try {
    return writtenBeforeBoot(statSync(file).mtimeMs, nowMs, uptimeSeconds);
  } catch {
    return false; // Gone already: the loop creates it afresh.
  }
}

function tryCreate(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, lockText(process.pid, ownIdentity()));
  } finally {
    closeSync(fd);
  }
  return true;
}

function readLock(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The lock's text: the pid on the first line (all an older Herald wrote, and what people and
 * scripts read), then which program it is and when it started.
 */
export function lockText(pid: number, identity: ProcessIdentity): string {
  return [
    String(pid),
    `name=${identity.name ?? ''}`,
    `started=${identity.startedAtMs ?? ''}`,
    '',
  ].join('\n');
}

function parsePid(content: string): number | null {
  const pid = Number(content.split('\n', 1)[0]!.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** The identity a lock records, or null for an older Herald's lock, which has none. */
function parseIdentity(content: string): ProcessIdentity | null {
  const values = new Map<string, string>();
  for (const line of content.split('\n').slice(1)) {
    const at = line.indexOf('=');
    if (at > 0) values.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  if (!values.has('name') && !values.has('started')) return null;
  const started = Number(values.get('started'));
  return {
    name: values.get('name') || null,
    startedAtMs: values.get('started') && Number.isFinite(started) ? started : null,
  };
}

function isLive(pid: number, file: string): boolean {
  if (pid === process.pid) return heldByThisProcess.has(file);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else; it may well be a Herald.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
