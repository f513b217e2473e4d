import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import {
  acquireDataDirLock,
  DataDirLockedError,
  lockText,
  LOCK_FILE,
} from '../../../../server/data-dir/lock';
import {
  executableName,
  ownIdentity,
  parseLinuxBootTime,
  parseLinuxStat,
  parsePowerShellIdentity,
  parsePsStart,
  processIdentity,
  sameProcess,
  type IdentitySources,
} from '../../../../server/data-dir/process-identity';

/** An error as execFileSync throws it: spawn failures carry a code, exits a status. */
const spawnFailed = (code: string) => Object.assign(new Error(`spawnSync ${code}`), { code });
const exited = (status: number) => Object.assign(new Error('Command failed'), { status });

describe('process identity: reading what each OS says', () => {
  it('parseLinuxStat() finds the name and start among fields, whatever the name holds', () => {
    const stat =
      '4242 (herald (desk) x) S 1 4242 4242 0 -1 4194560 3213 0 0 0 27 9 0 0 20 0 11 0 735432 1268559872 23105 18446744073709551615';
    expect(parseLinuxStat(stat)).toEqual({ name: 'herald (desk) x', startTicks: 735432 });
    expect(parseLinuxStat('garbage')).toBeNull();
    expect(parseLinuxStat('1 (x) S 1 2')).toBeNull();
    expect(parseLinuxBootTime('cpu  1 2 3\nbtime 1795819737\nprocesses 9\n')).toBe(1795819737);
    expect(parseLinuxBootTime('cpu 1\n')).toBeNull();
  });

  it('parsePsStart() reads ps’s lstart in local time, and nothing else', () => {
    expect(parsePsStart('Thu Nov 27 22:50:51 2026\n')).toBe(
      new Date(2026, 10, 27, 22, 50, 51).getTime(),
    );
    expect(parsePsStart('Mon Feb  2 08:05:09 2026')).toBe(new Date(2026, 1, 2, 8, 5, 9).getTime());
    expect(parsePsStart('')).toBeNull();
    expect(parsePsStart('yesterday')).toBeNull();
  });

  it('parsePowerShellIdentity() reads the name and UTC start, the start being optional', () => {
    expect(parsePowerShellIdentity('Herald\r\n2026-11-27T22:50:51.1234567Z\r\n')).toEqual({
      name: 'herald',
      startedAtMs: Date.parse('2026-11-27T22:50:51.123Z'),
    });
    // StartTime is refused for another user's elevated process: the name alone.
    expect(parsePowerShellIdentity('svchost\r\n\r\n')).toEqual({
      name: 'svchost',
      startedAtMs: null,
    });
    expect(parsePowerShellIdentity('')).toBeNull();
  });

  it('executableName() drops the folder and .exe, on either kind of path', () => {
    expect(executableName('/usr/bin/node')).toBe('node');
    expect(executableName('C:\\Program Files\\Herald\\Herald.exe')).toBe('herald');
    expect(executableName('/opt/Herald/herald-desktop')).toBe('herald-desktop');
  });

  it('sameProcess() is false only for another program, or another start, beyond the slack', () => {
    const herald = { name: 'herald', startedAtMs: 1_000_000 };
    expect(sameProcess(herald, { name: 'herald', startedAtMs: 1_004_000 })).toBe(true);
    expect(sameProcess(herald, { name: 'herald', startedAtMs: 1_011_000 })).toBe(false);
    expect(sameProcess(herald, { name: 'svchost', startedAtMs: 1_000_000 })).toBe(false);
    // Linux keeps 15 characters of a name.
    expect(
      sameProcess(
        { name: 'herald-desktop-x', startedAtMs: null },
        { name: 'herald-desktop-', startedAtMs: null },
      ),
    ).toBe(true);
    // What cannot be read never tells two processes apart.
    expect(sameProcess(herald, null)).toBe(true);
    expect(sameProcess(herald, { name: null, startedAtMs: null })).toBe(true);
    expect(sameProcess({ name: null, startedAtMs: null }, { name: 'x', startedAtMs: 5 })).toBe(
      true,
    );
  });

  it('processIdentity() asks each OS its own way and answers null when it cannot', () => {
    const calls: string[][] = [];
    const sources = (
      platform: NodeJS.Platform,
      over: Partial<IdentitySources>,
    ): IdentitySources => ({
      platform,
      readFile: (file) => {
        throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
      },
      run: (file, args) => {
        calls.push([file, ...args]);
        throw spawnFailed('ENOENT');
      },
      ...over,
    });

    // Linux: /proc; a pid that is gone has no /proc entry.
    const proc: Record<string, string> = {
      '/proc/42/stat': '42 (herald-desktop) S 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 12345 0 0',
      '/proc/stat': 'btime 1700000000\n',
    };
    const linux = sources('linux', {
      readFile: (file) => {
        if (file in proc) return proc[file]!;
        throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
      },
    });
    expect(processIdentity(42, linux)).toEqual({
      name: 'herald-desktop',
      startedAtMs: 1_700_000_000_000 + 123_450,
    });
    expect(processIdentity(43, linux)).toBeNull();

    // Windows: PowerShell, which a locked-down machine may lack.
    expect(processIdentity(7, sources('win32', {}))).toBeNull();
    expect(calls.at(-1)![0]).toBe('powershell.exe');
    expect(calls.at(-1)!.at(-1)).toContain('Get-Process -Id 7');
    const windows = sources('win32', { run: () => 'Herald\r\n2026-11-27T22:50:51.0000000Z\r\n' });
    expect(processIdentity(7, windows)).toEqual({
      name: 'herald',
      startedAtMs: Date.parse('2026-11-27T22:50:51Z'),
    });
    // Get-Process -ErrorAction Stop makes PowerShell exit 1 for a pid that is gone.
    expect(
      processIdentity(
        7,
        sources('win32', {
          run: () => {
            throw exited(1);
          },
        }),
      ),
    ).toBeNull();

    // macOS: ps, which exits 1 with nothing printed for a pid that is gone.
    const mac = sources('darwin', {
      run: (_file, args) =>
        args.includes('lstart=')
          ? 'Thu Nov 27 22:50:51 2026\n'
          : '/Applications/Herald.app/Contents/MacOS/Herald\n',
    });
    expect(processIdentity(9, mac)).toEqual({
      name: 'herald',
      startedAtMs: new Date(2026, 10, 27, 22, 50, 51).getTime(),
    });
    expect(
      processIdentity(
        9,
        sources('darwin', {
          run: () => {
            throw exited(1);
          },
        }),
      ),
    ).toBeNull();
  });
});

describe.skipIf(process.platform !== 'linux')(
  'process identity on this machine (Linux /proc)',
  () => {
    let child: ChildProcess | null = null;
    let dir: string | null = null;
    afterEach(() => {
      child?.kill('SIGKILL');
      child = null;
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = null;
    });

    it('ownIdentity() matches what /proc says of this process', () => {
      const own = ownIdentity();
      const read = processIdentity(process.pid);
      expect(read?.name).toBe(own.name);
      expect(sameProcess(own, read)).toBe(true);
    });

    it('a real live process holds its lock only while it is the program the lock names', async () => {
      child = spawn('sleep', ['60'], { stdio: 'ignore' });
      await new Promise((resolve) => child!.once('spawn', resolve));
      const pid = child.pid!;
      const live = processIdentity(pid)!;
      expect(live.name).toBe('sleep');
      dir = mkdtempSync(join(tmpdir(), 'herald-identity-'));
      const file = join(dir, LOCK_FILE);

      // Written by that very process: held.
      writeFileSync(file, lockText(pid, live));
      expect(() => acquireDataDirLock(dir!)).toThrow(DataDirLockedError);

      // Written by a Herald whose pid the OS has given to `sleep` since: taken over.
      writeFileSync(file, lockText(pid, { name: 'node', startedAtMs: live.startedAtMs }));
      acquireDataDirLock(dir).release();

      // The same program name, started an hour earlier: another process, taken over.
      writeFileSync(
        file,
        lockText(pid, { name: 'sleep', startedAtMs: live.startedAtMs! - 3_600_000 }),
      );
      acquireDataDirLock(dir).release();
    });
  },
);
