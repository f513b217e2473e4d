/**
 * `start`: starts on the data folder the run filled, as a service (node out/server/cli.js) and
 * as a user does (npm start, whose group includes npm itself); one figure each.
 */
import { spawn } from 'node:child_process';

import { cliFile } from '../build-server.mjs';
import { firstAnswerMs, groupRssMb, stopGroup } from './processes';
import type { Rig } from './rig';
import { freePort, median, round1 } from './shared';

/** Time to the first answer and idle memory of a fresh start on an existing data folder. */
async function measureStart(
  rig: Rig,
  label: string,
  command: string,
  args: string[],
  port: number,
): Promise<{ startMs: number; idleMb: number; pssMb: number | null; processes: string[] }> {
  const since = performance.now();
  const child = spawn(command, args, {
    cwd: rig.root,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, HERALD_HEADLESS: '1', HERALD_LOG: 'warn' },
  });
  try {
    const startMs = await firstAnswerMs(`http://127.0.0.1:${port}/api/console/status`, since);
    await new Promise((r) => setTimeout(r, rig.options.idleSeconds * 1000));
    const { totalMb, pssMb, processes } = groupRssMb(child.pid!);
    return { startMs, idleMb: totalMb, pssMb, processes };
  } catch (err) {
    throw new Error(`${label}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await stopGroup(child);
  }
}

/** Once the rig's Herald is stopped: its data folder is then free to start on. */
export async function startRow(rig: Rig) {
  const { starts } = rig.options;
  const startPort = await freePort();
  const flags = ['--headless', '--port', String(startPort), '--data-dir', rig.dataDir];
  for (const [what, command, args] of [
    ['node out/server/cli.js', process.execPath, [cliFile, ...flags.slice(1)]],
    ['npm start', 'npm', ['start', '--', ...flags]],
  ] as const) {
    const s: Array<{ startMs: number; idleMb: number; pssMb: number | null }> = [];
    for (let i = 0; i < starts; i++)
      s.push(await measureStart(rig, what, command, [...args], startPort));
    rig.record({
      what: `${what} on an existing data folder: first answer, and idle memory of the process group (RSS summed per process; PSS, shared pages counted once)`,
      herald: {
        startMs: Math.round(median(s.map((x) => x.startMs))),
        idleRssMb: round1(median(s.map((x) => x.idleMb))),
        ...(s.every((x) => x.pssMb !== null)
          ? { idlePssMb: round1(median(s.map((x) => x.pssMb ?? 0))) }
          : {}),
      },
      rounds: starts,
      bar:
        what === 'npm start'
          ? 'first answer < 1500 ms; idle group PSS < 100 MB (issue 26)'
          : 'first answer < 1500 ms, idle group < 120 MB',
    });
  }
}
