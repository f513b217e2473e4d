/**
 * What every row of `npm run bench` measures against: the bare Express ceilings and the webhook
 * peer, each in a process of its own, and one Herald set up with the channels and tokens the
 * rows send with.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { DeliveryLedger } from './delivery-ledger';
import { ADMIN, BenchConsole, startHerald } from './herald-process';
import { loadFor, waitUntil, type LoadFn } from './load';
import type { BenchOptions } from './options';
import { cpuMs, spawnUntil, stopGroup, type Spawned } from './processes';
import { printRow, type Row } from './report';
import { freePort } from './shared';

export interface Rig {
  root: string;
  options: BenchOptions;
  load: LoadFn;
  /** The data folder of the rig's Herald; the start row starts on it once it is filled. */
  dataDir: string;
  bareUrl: string;
  /** bare Express with Herald's request classes (bare-express.ts --born). */
  bareBornUrl: string;
  peerUrl: string;
  /** The webhook peer's counters; `DELETE` resets them first. */
  peerStats(method?: 'GET' | 'DELETE'): Promise<PeerStats>;
  heraldUrl: string;
  heraldCpuMs(): number;
  /** The webhook peer's CPU time so far. */
  peerCpuMs(): number;
  api: BenchConsole;
  tokens: {
    /** V2 to 1 hosted instance. */
    v2One: string;
    /** V1 to 1 hosted instance. */
    v1One: string;
    /** V2 to a webhook and a hosted instance. */
    v2Two: string;
    /** V2 to 2 webhook instances. */
    v2Hooks: string;
  };
  /** A V1 `mode: async` send with `tokens.v1One`. */
  v1Body: string;
  ledger: DeliveryLedger;
  /**
   * `sends` V2 sends to `sendUrl` (whose token fans out to 2 webhook instances on the peer),
   * timed from the first send to the last delivery's arrival; every delivery must arrive, and
   * no more than that. Deliveries per second.
   */
  deliverAll(sendUrl: string, body: string): Promise<number>;
  /** The rows so far; `record` adds one and prints it. */
  rows: Row[];
  record(row: Row): void;
  /** Stops Herald (under --profile, that writes its CPU profile) and says where the profile went. */
  stopHerald(): Promise<void>;
  /** Stops every process and removes the data folder. */
  stop(): Promise<void>;
}

/** What peer.mjs has received since its last reset (see there). */
export interface PeerStats {
  count: number;
  firstAt: number;
  lastAt: number;
  ids: number;
  complete: number;
  repeats: number;
}

export async function startRig(root: string, options: BenchOptions): Promise<Rig> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const profileDir = options.profile ? path.join(root, 'bench', 'results', 'profile') : undefined;
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  const load = loadFor(options.seconds);

  const bareApp = (...flags: string[]) =>
    spawnUntil(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'scripts/bench/bare-express.ts'), ...flags],
      /^(\d+)\n/m,
      { cwd: root, env: { ...process.env, NODE_ENV: 'production' } },
    );
  const bare = await bareApp();
  const bareBorn = await bareApp('--born');
  const peer = await spawnUntil(
    process.execPath,
    [path.join(root, 'scripts/bench/peer.mjs')],
    /^(\d+)\n/m,
    {
      cwd: root,
    },
  );
  const peerUrl = `http://127.0.0.1:${peer.match[1]}`;
  const peerStats = async (method = 'GET') =>
    (await (await fetch(`${peerUrl}/stats`, { method })).json()) as PeerStats;

  const port = await freePort();
  const herald: Spawned = await startHerald(root, dataDir, port, profileDir);
  const heraldUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopGroup(herald.child);
    await stopGroup(bare.child);
    await stopGroup(bareBorn.child);
    await stopGroup(peer.child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const api = new BenchConsole(heraldUrl);
    await api.call('POST', '/login', ADMIN);
    const hosted = await api.channel('hosted');
    const hooks = await api.peerHooks(peerUrl);
    const tokens = {
      v2One: await api.token('templates', [hosted]),
      v1One: await api.token('tasks', [hosted]),
      v2Two: await api.token('templates', [hooks[0], hosted]),
      v2Hooks: await api.token('templates', hooks),
    };
    const rows: Row[] = [];
    return {
      root,
      options,
      load,
      dataDir,
      bareUrl: `http://127.0.0.1:${bare.match[1]}`,
      bareBornUrl: `http://127.0.0.1:${bareBorn.match[1]}`,
      peerUrl,
      peerStats,
      heraldUrl,
      heraldCpuMs: () => cpuMs(herald.child.pid!) ?? NaN,
      peerCpuMs: () => cpuMs(peer.child.pid!) ?? NaN,
      api,
      tokens,
      v1Body: JSON.stringify({
        token: tokens.v1One,
        title: 'bench',
        text: 'disk at 98%',
        mode: 'async',
      }),
      ledger: new DeliveryLedger(async () => ({
        hosted: (await api.call<{ count: number }>('GET', '/messages/unread-count')).count,
        peer: (await peerStats()).count,
      })),
      async deliverAll(sendUrl, body) {
        const { sends } = options;
        await peerStats('DELETE');
        const started = Date.now();
        const r = await load(sendUrl, body, 20, sends);
        if (r.ok !== sends) throw new Error(`${r.ok} of ${sends} sends accepted`);
        await waitUntil(
          'every delivery to arrive',
          async () => (await peerStats()).count >= 2 * sends,
        );
        const { count, lastAt } = await peerStats();
        if (count !== 2 * sends) throw new Error(`${count} deliveries for ${2 * sends}`);
        return (2 * sends) / ((lastAt - started) / 1000);
      },
      rows,
      record(row) {
        rows.push(row);
        printRow(row);
      },
      async stopHerald() {
        await stopGroup(herald.child);
        if (profileDir) {
          const profile = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
          console.log(
            `CPU profile of the server: ${profile ? path.join(profileDir, profile) : 'none written'}`,
          );
        }
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
