/**
 * `floor`: Herald's deliveries beside the least a durable dispatcher must do (lean-dispatcher.mjs:
 * the send and its deliveries committed before the 200, attempts and outcomes committed, 64 in
 * flight), under the same load in the same run: V2 sends from 64 connections, each fanning out
 * to the peer's two hooks. The two take turns, the first swapping each round, so drift in a
 * shared machine's speed falls on both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { PEER_HOOKS } from './herald-process';
import { waitUntil } from './load';
import { cpuMs, spawnUntil, stopGroup } from './processes';
import type { Rig } from './rig';
import { median, round1, round2 } from './shared';

export const CONNECTIONS = 64;

/** A V2 send whose `host` placeholder carries its own id, so the peer counts it per send. */
export const floorBody = (token: string) =>
  JSON.stringify({ token, title: 'bench', placeholders: { host: 'sid-[<id>]', pct: 98 } });

interface Run {
  deliveriesPerSecond: number;
  cpuMsPerDelivery: number;
  /** Every send reached both hooks, once each. */
  allArrived: boolean;
}

/**
 * `sends` sends from 64 connections, timed from the load's start to the peer's last delivery;
 * then a quiet second, so a delivery made twice shows as a repeat.
 */
async function deliverRun(rig: Rig, url: string, sends: number, cpu: () => number): Promise<Run> {
  const body = floorBody(rig.tokens.v2Hooks);
  await rig.peerStats('DELETE');
  const cpuBefore = cpu();
  const started = Date.now();
  const r = await rig.load(url, body, CONNECTIONS, sends);
  if (r.ok !== sends) throw new Error(`${url}: ${r.ok} of ${sends} sends accepted`);
  await waitUntil(
    `every send at ${url} to reach both hooks`,
    async () => (await rig.peerStats()).complete >= sends,
  );
  const arrived = await rig.peerStats();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = await rig.peerStats();
  return {
    deliveriesPerSecond: (2 * sends) / ((arrived.lastAt - started) / 1000),
    cpuMsPerDelivery: (cpu() - cpuBefore) / (2 * sends),
    allArrived:
      after.ids === sends &&
      after.complete === sends &&
      after.repeats === 0 &&
      after.count === 2 * sends,
  };
}

/** Records the row; returns the floor's deliveries per second (the median of its runs). */
export async function floorRow(rig: Rig): Promise<number> {
  const { rounds, floorSends: sends } = rig.options;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'herald-bench-floor-'));
  const lean = await spawnUntil(
    process.execPath,
    [
      path.join(rig.root, 'scripts/bench/lean-dispatcher.mjs'),
      '--db',
      path.join(dir, 'lean.db'),
      '--targets',
      PEER_HOOKS.map((hook) => rig.peerUrl + hook).join(','),
    ],
    /^(\d+)\n/m,
    { cwd: rig.root },
  );
  const h: Run[] = [];
  const f: Run[] = [];
  try {
    const leanUrl = `http://127.0.0.1:${lean.match[1]}/send`;
    const runHerald = async () =>
      h.push(await deliverRun(rig, `${rig.heraldUrl}/api/v2/message/send`, sends, rig.heraldCpuMs));
    const runFloor = async () =>
      f.push(await deliverRun(rig, leanUrl, sends, () => cpuMs(lean.child.pid!) ?? NaN));
    for (let i = 0; i < rounds; i++) {
      for (const run of i % 2 === 0 ? [runHerald, runFloor] : [runFloor, runHerald]) await run();
    }
  } finally {
    await stopGroup(lean.child);
    rmSync(dir, { recursive: true, force: true });
  }
  // The rig's ledger counts the peer from what is there now.
  rig.ledger.expectPeerTotal((await rig.peerStats()).count);
  const figures = (runs: Run[]) => ({
    deliveriesPerSecond: round1(median(runs.map((r) => r.deliveriesPerSecond))),
    cpuMsPerDelivery: round2(median(runs.map((r) => r.cpuMsPerDelivery))),
    allArrived: runs.every((r) => r.allArrived) ? 1 : 0,
  });
  const herald = figures(h);
  const floor = figures(f);
  rig.record({
    what: `Deliveries against the lean durable dispatcher (the floor): ${sends} V2 sends from ${CONNECTIONS} connections × 2 webhook instances on one peer, each (allArrived 1: every send reached both, once)`,
    herald,
    ceiling: floor,
    ratio: round2(herald.deliveriesPerSecond / floor.deliveriesPerSecond),
    rounds,
    bar: '≥ 0.6× the floor, every delivery made',
  });
  return floor.deliveriesPerSecond;
}
