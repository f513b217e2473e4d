import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Which program a pid belongs to, and since when: what tells the Herald that wrote a data
 * folder's lock from another program that got its pid later. The boot-time check
 * (lock.ts writtenBeforeBoot) misses that on Windows, whose Fast Startup keeps the kernel, and
 * so the uptime, across "Shut down": a lock from before it looks fresh, and its pid may by then
 * be any program's.
 *
 * Each OS is read its own way, without native modules: Linux's /proc, `ps` on macOS and the BSDs,
 * PowerShell's Get-Process on Windows. What cannot be read is unknown, never a mismatch: the
 * lock then stays as careful as before.
 */

/** A process as the lock records it and the check reads it back. */
export interface ProcessIdentity {
  /** The executable's name without folder or `.exe`, lower-cased (`node`, `herald`, `electron`). */
  name: string | null;
  /** When it started, in ms since the epoch. */
  startedAtMs: number | null;
}

/**
 * How far two readings of one start time may differ: Node counts from its own start, a moment
 * after the OS created the process (more in Electron, which starts Chromium first); `ps` and
 * Linux's boot time have whole seconds.
 */
export const START_TIME_SLACK_MS = 10_000;

/** Linux names a process by at most 15 characters of its executable (TASK_COMM_LEN - 1). */
const LINUX_COMM_LENGTH = 15;

/** A normal form of an executable's name: no folder, no `.exe`, lower case. */
export function executableName(file: string): string {
  return path.win32
    .basename(path.posix.basename(file))
    .replace(/\.exe$/i, '')
    .toLowerCase();
}

/** This process, as its lock records it. */
export function ownIdentity(now = Date.now()): ProcessIdentity {
  return {
    name: executableName(process.execPath),
    startedAtMs: Math.round(now - process.uptime() * 1000),
  };
}

/**
 * sameProcess() is false only when `live` is known to be another program than `recorded`:
 * another executable, or one started at another time. Anything unknown answers true.
 */
export function sameProcess(recorded: ProcessIdentity, live: ProcessIdentity | null): boolean {
  if (live === null) return true;
  if (recorded.name !== null && live.name !== null) {
    // Linux's comm keeps only the first 15 characters.
    const a = recorded.name.slice(0, LINUX_COMM_LENGTH);
    const b = live.name.slice(0, LINUX_COMM_LENGTH);
    if (a !== b) return false;
  }
  if (recorded.startedAtMs !== null && live.startedAtMs !== null) {
    return Math.abs(recorded.startedAtMs - live.startedAtMs) <= START_TIME_SLACK_MS;
  }
  return true;
}

/**
 * parseLinuxStat() reads a process's name and start (clock ticks after boot) from
 * /proc/<pid>/stat, whose second field is the name in parentheses, which may itself hold
 * spaces and parentheses: the fields after the last ')' start with the state (field 3), and
 * the start time is field 22.
 */
export function parseLinuxStat(text: string): { name: string; startTicks: number } | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const startTicks = Number(fields[22 - 3]);
  if (!Number.isSafeInteger(startTicks)) return null;
  return { name: text.slice(open + 1, close), startTicks };
}

/** The boot time in seconds since the epoch, from /proc/stat's `btime` line. */
export function parseLinuxBootTime(text: string): number | null {
  const match = /^btime\s+(\d+)$/m.exec(text);
  return match ? Number(match[1]) : null;
}

/**
 * The kernel reports /proc times in USER_HZ ticks, fixed at 100 for userspace on every
 * architecture Linux builds for (include/asm-generic/param.h), whatever the kernel's own HZ.
 */
const LINUX_USER_HZ = 100;

/**
 * parsePsStart() reads `ps -o lstart=`: the local time a process started, as
 * "Thu Nov 27 22:50:51 2026" (ctime's layout, the same on macOS and the BSDs).
 */
export function parsePsStart(text: string): number | null {
  const match = /^\w{3}\s+(\w{3})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+(\d{4})$/.exec(
    text.trim(),
  );
  if (!match) return null;
  const month = [
    'Jan',
    'Feb',
    'Mar',
    'Apr',
    'May',
    'Jun',
    'Jul',
    'Aug',
    'Sep',
    'Oct',
    'Nov',
    'Dec',
  ].indexOf(match[1]!);
  if (month < 0) return null;
  const [, , day, hours, minutes, seconds, year] = match;
  return new Date(
    Number(year),
    month,
    Number(day),
    Number(hours),
    Number(minutes),
    Number(seconds),
  ).getTime();
}

/** What the PowerShell command below prints: the name, then the start time in UTC (ISO 8601). */
export function parsePowerShellIdentity(text: string): ProcessIdentity | null {
  const [name, started] = text.split(/\r?\n/).map((line) => line.trim());
  if (!name) return null;
  const startedAtMs = started ? Date.parse(started) : NaN;
  return {
    name: executableName(name),
    startedAtMs: Number.isFinite(startedAtMs) ? startedAtMs : null,
  };
}

/** The calls the readers make, failing as node's do (err.code, a non-zero exit throws). */
export interface IdentitySources {
  platform: NodeJS.Platform;
  readFile(file: string): string;
  /** Runs a program and returns what it printed; throws when it fails or exits non-zero. */
  run(file: string, args: string[]): string;
}

export const systemSources: IdentitySources = {
  platform: process.platform,
  readFile: (file) => readFileSync(file, 'utf8'),
  run: (file, args) =>
    execFileSync(file, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 15_000,
      windowsHide: true,
    }),
};

/**
 * processIdentity() reads what the OS says of `pid`; null when it cannot tell (the process is
 * gone, the tool is missing or refused).
 */
export function processIdentity(
  pid: number,
  sources: IdentitySources = systemSources,
): ProcessIdentity | null {
  try {
    if (sources.platform === 'linux') {
      const stat = parseLinuxStat(sources.readFile(`/proc/${pid}/stat`));
      const bootSeconds = parseLinuxBootTime(sources.readFile('/proc/stat'));
      if (!stat) return null;
      return {
        name: stat.name.toLowerCase(),
        startedAtMs:
          bootSeconds === null
            ? null
            : bootSeconds * 1000 + Math.round((stat.startTicks * 1000) / LINUX_USER_HZ),
      };
    }
    if (sources.platform === 'win32') {
      const script =
        `$p = Get-Process -Id ${pid} -ErrorAction Stop; $p.ProcessName; ` +
        `try { $p.StartTime.ToUniversalTime().ToString('o') } catch { '' }`;
      return parsePowerShellIdentity(
        sources.run('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', script]),
      );
    }
    // macOS and the BSDs: `ps` exits 1 and prints nothing for a pid that is gone.
    const started = parsePsStart(sources.run('ps', ['-p', String(pid), '-o', 'lstart=']));
    const command = sources.run('ps', ['-p', String(pid), '-o', 'comm=']).trim();
    return { name: command ? executableName(command) : null, startedAtMs: started };
  } catch {
    return null;
  }
}
