/**
 * `worker`: the write worker's effect. A Herald of its own for each mode, V2 sends at a fixed
 * rate (the same work for both), and the CPU time of each of its threads per send; then what
 * each mode does at full speed on this machine: accepting, and delivering.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ADMIN, BenchConsole, startHerald, v2Body } from './herald-process';
import { stopGroup, threadCpuMs } from './processes';
import type { Rig } from './rig';
import { freePort, median, round1, round2 } from './shared';

export async function workerRow(rig: Rig) {
  const { load, options } = rig;
  const { rounds, sends } = options;
  const rate = options.quick ? 1000 : 2000;
  const figures: Record<string, number> = {};
  for (const mode of ['off', 'on'] as const) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'herald-bench-worker-'));
    const workerPort = await freePort();
    const own = await startHerald(rig.root, dir, workerPort, undefined, {
      HERALD_WRITE_WORKER: mode,
    });
    try {
      const url = `http://127.0.0.1:${workerPort}`;
      const c = new BenchConsole(url);
      await c.call('POST', '/login', ADMIN);
      const token = await c.token('templates', [await c.channel('hosted')]);
      const send = `${url}/api/v2/message/send`;
      // Warm-up, which also starts the worker.
      await load(send, v2Body(token), 64, rate);
      const before = threadCpuMs(own.child.pid!);
      const r = await load(send, v2Body(token), 64, undefined, rate);
      const after = threadCpuMs(own.child.pid!);
      const perSend = (ms: number) => Math.round((ms * 1000) / r.ok);
      const used = [...after].map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }));
      const main = used.find((t) => t.tid === own.child.pid)?.ms ?? NaN;
      const others = used.filter((t) => t.tid !== own.child.pid).sort((a, b) => b.ms - a.ms);
      figures[`${mode}MainUs`] = perSend(main);
      if (mode === 'on') figures.onWorkerUs = perSend(others[0]?.ms ?? NaN);
      figures[`${mode}TotalUs`] = perSend(used.reduce((sum, t) => sum + t.ms, 0));
      figures[`${mode}P99Ms`] = r.p99;

      const fullSpeedAccept: number[] = [];
      const fullSpeedDeliver: number[] = [];
      const hooksToken = await c.token('templates', await c.peerHooks(rig.peerUrl));
      for (let i = 0; i < rounds; i++) {
        const bareRps = (await load(`${rig.bareUrl}/api/v2/message/send`, v2Body(token), 64)).rps;
        fullSpeedAccept.push((await load(send, v2Body(token), 64)).rps / bareRps);
        fullSpeedDeliver.push(await rig.deliverAll(send, v2Body(hooksToken)));
      }
      // Against stock bare Express, loaded just before in each round.
      figures[`${mode}AcceptRatio`] = round2(median(fullSpeedAccept));
      figures[`${mode}DeliveriesPerSecond`] = round1(median(fullSpeedDeliver));
    } finally {
      await stopGroup(own.child);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  rig.record({
    what: `HERALD_WRITE_WORKER off and on: CPU µs per send by thread at a fixed ${rate} V2 sends/s (64 connections, 1 hosted instance); at full speed, V2 sends accepted (the same load, as a ratio to stock bare Express) and deliveries end to end (${sends} sends × 2 webhook instances)`,
    herald: figures,
    rounds,
    bar: '— (what the write worker moves off the main thread, and what it costs)',
  });
}
