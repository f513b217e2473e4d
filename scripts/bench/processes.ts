/**
 * Child processes for `npm run bench`: each measured server runs in its own process group, so
 * the load generator never shares its event loop and the group's memory can be summed.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Spawned {
  child: ChildProcess;
  /** Everything the process printed, for error messages. */
  output(): string;
}

/** Starts `command` in a new process group; resolves once a line of stdout matches `ready`. */
export function spawnUntil(
  command: string,
  args: string[],
  ready: RegExp,
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Spawned & { match: RegExpMatchArray }> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} ${args.join(' ')} did not start: ${out}`)),
      options.timeoutMs ?? 60_000,
    );
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = out.match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}: ${out}`));
    });
  });
}

/** Sends SIGTERM to the whole group and waits for the leader to exit. */
export async function stopGroup(child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** Resident memory of every process in the group, in MB (ps reports KiB). */
/**
 * Resident memory of a process group, two ways. `totalMb` adds up each process's RSS, which
 * counts a page shared by several processes once per process: npm and Herald run the same
 * Node binary, whose pages are resident once. `pssMb` adds up the proportional set sizes
 * (/proc/PID/smaps_rollup), which split each shared page among its sharers, so the sum is
 * what the group holds; null where /proc does not tell.
 */
export function groupRssMb(pgid: number): {
  totalMb: number;
  pssMb: number | null;
  processes: string[];
} {
  const lines = execFileSync('ps', ['-o', 'pid=,rss=,args=', '-g', String(pgid)], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .filter(Boolean);
  const fields = lines.map((line) => line.trim().split(/\s+/));
  const kib = fields.reduce((sum, f) => sum + Number(f[1]), 0);
  let pssKib: number | null = 0;
  for (const f of fields) {
    const pss = pssKibOf(Number(f[0]));
    if (pss === null) pssKib = null;
    else if (pssKib !== null) pssKib += pss;
  }
  return {
    totalMb: kib / 1024,
    pssMb: pssKib === null ? null : pssKib / 1024,
    processes: lines.map((l) => l.trim()),
  };
}

function pssKibOf(pid: number): number | null {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const m = /^Pss:\s+(\d+) kB/m.exec(rollup);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Polls `url` until it answers anything; returns the time from `since` in ms. */
export async function firstAnswerMs(
  url: string,
  since: number,
  timeoutMs = 60_000,
): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      return performance.now() - since;
    } catch {
      if (performance.now() - since > timeoutMs) throw new Error(`${url} never answered`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc; null where there is no
 * /proc. Per request it is the figure that other load on a shared machine disturbs least.
 */
export function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime is 14th, stime 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** CPU time of each thread of a process so far, by thread id (the main thread's is the pid). */
export function threadCpuMs(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

/** USER_HZ: 100 on every Linux Herald runs on. */
const CLOCK_TICKS = 100;
