/**
 * `floor`, second row: what the machine's cores allow Herald in the floor row, from what each
 * part of its work costs alone. A paused Herald (paused-herald.ts, the production server built
 * as out/server is) first accepts the row's sends with no delivery running, then makes their
 * deliveries with no send arriving. The load generator's CPU is read during the first part and
 * the peer's during the second. With those costs, `deliveriesBound` says how many deliveries
 * a second the cores could carry with every core busy all the time; against the floor's rate
 * from the row before, that is the highest ratio any layout of Herald's threads could reach.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { buildPausedHerald } from '../build-server.mjs';
import { deliveriesBound } from './cpu-budget';
import { CONNECTIONS, floorBody } from './floor-row';
import { ADMIN, BenchConsole, startHerald } from './herald-process';
import { waitUntil } from './load';
import { cpuMs, stopGroup } from './processes';
import type { Rig } from './rig';
import { freePort, round1, round2 } from './shared';

/** The part of the row's sends run first, to warm the paused Herald up as the rig's Herald is. */
const WARM_UP_SHARE = 0.2;

export async function budgetRow(rig: Rig, floorPerSecond: number) {
  const sends = rig.options.floorSends;
  const script = await buildPausedHerald();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'herald-bench-budget-'));
  const port = await freePort();
  const herald = await startHerald(rig.root, dir, port, undefined, {}, script);
  const pid = herald.child.pid!;
  const heraldCpu = () => cpuMs(pid) ?? NaN;
  // Resumes the paused deliveries, or pauses them again (paused-herald.ts).
  const toggle = () => process.kill(pid, 'SIGUSR2');
  try {
    const url = `http://127.0.0.1:${port}`;
    const api = new BenchConsole(url);
    await api.call('POST', '/login', ADMIN);
    const body = floorBody(await api.token('templates', await api.peerHooks(rig.peerUrl)));
    const sendUrl = `${url}/api/v2/message/send`;
    /** Accepts `n` sends, then delivers them; the CPU and time of each part. */
    const run = async (n: number) => {
      await rig.peerStats('DELETE');
      const cpu0 = heraldCpu();
      const load0 = process.cpuUsage();
      const r = await rig.load(sendUrl, body, CONNECTIONS, n);
      if (r.ok !== n) throw new Error(`${sendUrl}: ${r.ok} of ${n} sends accepted`);
      const loadUsage = process.cpuUsage(load0);
      const cpu1 = heraldCpu();
      const peer1 = rig.peerCpuMs();
      const resumedAt = Date.now();
      toggle();
      await waitUntil(
        `every send at ${sendUrl} to reach both hooks`,
        async () => (await rig.peerStats()).complete >= n,
      );
      const arrived = await rig.peerStats();
      const cpu2 = heraldCpu();
      const peer2 = rig.peerCpuMs();
      toggle();
      if (arrived.count !== 2 * n || arrived.repeats !== 0) {
        throw new Error(`${arrived.count} deliveries (${arrived.repeats} repeated) for ${2 * n}`);
      }
      return {
        acceptMsPerSend: (cpu1 - cpu0) / n,
        deliverMsPerDelivery: (cpu2 - cpu1) / (2 * n),
        deliveriesAlonePerSecond: (2 * n) / ((arrived.lastAt - resumedAt) / 1000),
        loadMsPerDelivery: (loadUsage.user + loadUsage.system) / 1000 / (2 * n),
        peerMsPerDelivery: (peer2 - peer1) / (2 * n),
      };
    };
    await run(Math.max(1, Math.round(sends * WARM_UP_SHARE)));
    const parts = await run(sends);
    const cores = os.availableParallelism();
    const bound = deliveriesBound({
      acceptMsPerSend: parts.acceptMsPerSend,
      deliverMsPerDelivery: parts.deliverMsPerDelivery,
      othersMsPerDelivery: parts.loadMsPerDelivery + parts.peerMsPerDelivery,
      deliveriesPerSend: 2,
      cores,
    });
    rig.record({
      what: `What ${cores} cores allow Herald in the floor row: each part's CPU alone (a paused Herald accepts the ${sends} sends, then delivers them), the load generator's and the peer's CPU per delivery, and the deliveries/s all of it fits in with every core busy`,
      herald: {
        acceptCpuMsPerSend: round2(parts.acceptMsPerSend),
        deliveriesAlonePerSecond: round1(parts.deliveriesAlonePerSecond),
        cpuMsPerDeliveryAlone: round2(parts.deliverMsPerDelivery),
        loadCpuMsPerDelivery: round2(parts.loadMsPerDelivery),
        peerCpuMsPerDelivery: round2(parts.peerMsPerDelivery),
        deliveriesBoundPerSecond: round1(bound),
        deliveriesAloneRatio: round2(parts.deliveriesAlonePerSecond / floorPerSecond),
      },
      ceiling: { deliveriesPerSecond: floorPerSecond },
      ratio: round2(bound / floorPerSecond),
      rounds: 1,
      bar: 'none of its own: the floor row can reach 0.6 only where this ratio (the most the cores allow) is well above 0.6',
    });
  } finally {
    await stopGroup(herald.child);
    rmSync(dir, { recursive: true, force: true });
  }
  // The rig's ledger counts the peer from what is there now.
  rig.ledger.expectPeerTotal((await rig.peerStats()).count);
}
