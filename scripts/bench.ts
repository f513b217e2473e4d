/**
 * `npm run bench`: the figures of issue 8's table, each a median of rounds beside its ceiling
 * measured in the same run, on loopback. Herald runs as production does (the compiled bundle
 * out/server/cli.js, NODE_ENV=production) in its own process; the bare Express ceiling and
 * the webhook peer run in their own processes too, so the load generator (autocannon, here)
 * shares no event loop with what it measures. Machines here are shared and noisy: the figures
 * are medians and ratios, never pass/fail.
 *
 *   npm run bench [-- --rounds 3 --seconds 5 --sends 3000 --starts 3 --profile --quick]
 *                 [-- --only v2,v1,two,deliver,worker,start]   (some rows, while iterating)
 *
 * Writes bench/results/latest.json (--quick: bench/results/quick.json; --out FILE).
 * --profile runs Herald under `node --cpu-prof` and prints where the profile went.
 * --history and --postgres run other benchmarks (scripts/bench-history.ts, bench-postgres.ts).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import autocannon from 'autocannon';

import { appRoot } from '../server/lib/app-root';
import { cliFile, ensureServerBuilt } from './build-server.mjs';
import { ConsoleClient, freePort, median, round1, round2 } from './bench/shared';
import {
  cpuMs,
  firstAnswerMs,
  groupRssMb,
  spawnUntil,
  stopGroup,
  threadCpuMs,
  type Spawned,
} from './bench/processes';

const root = appRoot(import.meta.url);
const ADMIN = { username: 'bench', password: 'bench password 1234' };

const history = process.argv.includes('--history') ? await import('./bench-history') : null;
if (history) await history.finished.then(() => process.exit(0));
const postgres = process.argv.includes('--postgres') ? await import('./bench-postgres') : null;
if (postgres) await postgres.finished.then(() => process.exit(0));
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    sends: { type: 'string' },
    starts: { type: 'string' },
    idle: { type: 'string' },
    profile: { type: 'boolean', default: false },
    out: { type: 'string' },
    only: { type: 'string' },
  },
});
const ROWS = ['v2', 'v1', 'two', 'deliver', 'worker', 'start'] as const;
const only = new Set(values.only ? values.only.split(',').map((r) => r.trim()) : ROWS);
for (const r of only) {
  if (!(ROWS as readonly string[]).includes(r)) {
    throw new Error(`--only: unknown row "${r}"; rows are ${ROWS.join(', ')}`);
  }
}
const runs = (row: (typeof ROWS)[number]) => only.has(row);
const quick = values.quick;
const rounds = Number(values.rounds ?? (quick ? 1 : 3));
const seconds = Number(values.seconds ?? (quick ? 2 : 5));
const sends = Number(values.sends ?? (quick ? 300 : 3000));
const starts = Number(values.starts ?? (quick ? 1 : 3));
const idleSeconds = Number(values.idle ?? (quick ? 2 : 5));
const outFile = path.resolve(
  values.out ?? path.join(root, 'bench', 'results', quick ? 'quick.json' : 'latest.json'),
);
for (const [name, n] of Object.entries({ rounds, seconds, sends, starts, idleSeconds })) {
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
}

interface Load {
  rps: number;
  p99: number;
  ok: number;
}

async function load(
  url: string,
  body: string,
  connections: number,
  amount?: number,
  overallRate?: number,
): Promise<Load> {
  const result = await autocannon({
    url,
    method: 'POST',
    connections,
    ...(amount ? { amount } : { duration: seconds }),
    ...(overallRate && { overallRate }),
    headers: { 'Content-Type': 'application/json' },
    body,
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return { rps: result.requests.average, p99: result.latency.p99, ok: result['2xx'] };
}

/** A signed-in console client for setting Herald up over its own API. */
class Console extends ConsoleClient {
  async channel(type: string, config: Record<string, unknown> = {}): Promise<number> {
    const name = `bench-${type}-${Math.random().toString(36).slice(2, 8)}`;
    return (await this.call<{ id: number }>('POST', '/channels', { name, type, config })).id;
  }

  /** A V2 template (or, with `v1`, a V1 task) bound to the channels; returns its token. */
  async token(kind: 'templates' | 'tasks', channelIds: number[]): Promise<string> {
    const name = `bench-${Math.random().toString(36).slice(2, 8)}`;
    const fields =
      kind === 'templates'
        ? {
            name,
            text: 'host {{host}} at {{pct}}%',
            placeholders: [
              { key: 'host', label: 'Host' },
              { key: 'pct', label: 'Percent' },
            ],
          }
        : { name };
    const { id } = await this.call<{ id: number }>('POST', `/${kind}`, fields);
    for (const channelId of channelIds) {
      await this.call('POST', `/${kind}/${id}/instances`, { channelId, contentType: 'text' });
    }
    return (await this.call<{ token: string }>('GET', `/${kind}/${id}/token`)).token;
  }
}

async function startHerald(
  dataDir: string,
  port: number,
  profileDir?: string,
  env: Record<string, string> = {},
): Promise<Spawned> {
  const args = [
    ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []),
    cliFile,
    '--port',
    String(port),
    '--data-dir',
    dataDir,
  ];
  return spawnUntil(process.execPath, args, /Herald is running at/, {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HERALD_LOG: 'warn',
      HERALD_ADMIN_USER: ADMIN.username,
      HERALD_ADMIN_PASSWORD: ADMIN.password,
      ...env,
    },
  });
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Row {
  what: string;
  herald: Record<string, number>;
  ceiling?: Record<string, number>;
  ratio?: number;
  /** The ceiling app with Herald's request classes (bare-express.ts --born), and the ratio to it. */
  sameClasses?: { rps: number; ratio: number };
  rounds: number;
  bar: string;
}

/** Time to the first answer and idle memory of a fresh start on an existing data folder. */
async function measureStart(
  label: string,
  command: string,
  args: string[],
  port: number,
): Promise<{ startMs: number; idleMb: number; pssMb: number | null; processes: string[] }> {
  const since = performance.now();
  const { spawn } = await import('node:child_process');
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, HERALD_HEADLESS: '1', HERALD_LOG: 'warn' },
  });
  try {
    const startMs = await firstAnswerMs(`http://127.0.0.1:${port}/api/console/status`, since);
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const { totalMb, pssMb, processes } = groupRssMb(child.pid!);
    return { startMs, idleMb: totalMb, pssMb, processes };
  } catch (err) {
    throw new Error(`${label}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await stopGroup(child);
  }
}

async function main() {
  if (await ensureServerBuilt()) console.log('built out/server (the production server bundle)');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const profileDir = values.profile ? path.join(root, 'bench', 'results', 'profile') : undefined;
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });

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
  const bareUrl = `http://127.0.0.1:${bare.match[1]}`;
  const bareBornUrl = `http://127.0.0.1:${bareBorn.match[1]}`;
  const peerUrl = `http://127.0.0.1:${peer.match[1]}`;
  const peerStats = async (method = 'GET') =>
    (await (await fetch(`${peerUrl}/stats`, { method })).json()) as {
      count: number;
      firstAt: number;
      lastAt: number;
    };

  /**
   * `sends` V2 sends to `sendUrl` (whose token fans out to 2 webhook instances on the peer),
   * timed from the first send to the last delivery's arrival; every delivery must arrive, and
   * no more than that.
   */
  const deliverAll = async (sendUrl: string, body: string): Promise<number> => {
    await peerStats('DELETE');
    const started = Date.now();
    const r = await load(sendUrl, body, 20, sends);
    if (r.ok !== sends) throw new Error(`${r.ok} of ${sends} sends accepted`);
    await waitUntil('every delivery to arrive', async () => (await peerStats()).count >= 2 * sends);
    const { count, lastAt } = await peerStats();
    if (count !== 2 * sends) throw new Error(`${count} deliveries for ${2 * sends}`);
    return (2 * sends) / ((lastAt - started) / 1000);
  };

  const port = await freePort();
  const herald = await startHerald(dataDir, port, profileDir);
  const heraldUrl = `http://127.0.0.1:${port}`;
  const heraldCpuMs = () => cpuMs(herald.child.pid!) ?? NaN;
  const rows: Row[] = [];
  try {
    const api = new Console(heraldUrl);
    await api.call('POST', '/login', ADMIN);
    const hosted = await api.channel('hosted');
    const hooks = [
      await api.channel('webhook', { url: `${peerUrl}/hook-a` }),
      await api.channel('webhook', { url: `${peerUrl}/hook-b` }),
    ];
    const v2One = await api.token('templates', [hosted]);
    const v1One = await api.token('tasks', [hosted]);
    const v2Two = await api.token('templates', [hooks[0], hosted]);
    const v2Hooks = await api.token('templates', hooks);
    const v2Body = (token: string) =>
      JSON.stringify({ token, title: 'bench', placeholders: { host: 'web-3', pct: 98 } });
    const v1Body = JSON.stringify({
      token: v1One,
      title: 'bench',
      text: 'disk at 98%',
      mode: 'async',
    });

    // Every accepted send must be delivered: hosted messages and peer requests are counted
    // against the 2xx answers before the next figure is taken, so a backlog never leaks into it.
    // A timed load stops with up to one request per connection in flight and uncounted, which
    // Herald may still have accepted: that much slack is allowed, then the count moves on.
    let hostedExpected = 0;
    let peerExpected = 0;
    const settle = async (slack: number) => {
      const counts = async () => ({
        hosted: (await api.call<{ count: number }>('GET', '/messages/unread-count')).count,
        peer: (await peerStats()).count,
      });
      await waitUntil('every accepted send to be delivered', async () => {
        const { hosted, peer } = await counts();
        return hosted >= hostedExpected && peer >= peerExpected;
      });
      // Stragglers (accepted while uncounted) queue behind the rest: wait for a quiet second.
      let last = await counts();
      for (;;) {
        await new Promise((r) => setTimeout(r, 1000));
        const now = await counts();
        if (now.hosted === last.hosted && now.peer === last.peer) break;
        last = now;
      }
      const { hosted, peer } = last;
      if (hosted > hostedExpected + slack || peer > peerExpected + slack) {
        throw new Error(
          `more deliveries than sends: ${hosted} hosted for ${hostedExpected}, ${peer} webhook for ${peerExpected}`,
        );
      }
      hostedExpected = hosted;
      peerExpected = peer;
    };

    const acceptRow = async (
      what: string,
      apiPath: string,
      body: string,
      connections: number,
      perSend: { hosted: number; peer: number },
      bar: string,
      sameClasses = false,
    ) => {
      const h: Load[] = [];
      const c: Load[] = [];
      const born: Load[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < rounds; i++) {
        c.push(await load(`${bareUrl}${apiPath}`, body, connections));
        if (sameClasses) born.push(await load(`${bareBornUrl}${apiPath}`, body, connections));
        const cpuBefore = heraldCpuMs();
        const r = await load(`${heraldUrl}${apiPath}`, body, connections);
        h.push(r);
        hostedExpected += r.ok * perSend.hosted;
        peerExpected += r.ok * perSend.peer;
        await settle(connections);
        // Accepting and delivering what was accepted, per send.
        cpu.push((heraldCpuMs() - cpuBefore) / r.ok);
      }
      const herald = {
        rps: round1(median(h.map((x) => x.rps))),
        p99Ms: median(h.map((x) => x.p99)),
        cpuMsPerSend: round2(median(cpu)),
      };
      const ceiling = {
        rps: round1(median(c.map((x) => x.rps))),
        p99Ms: median(c.map((x) => x.p99)),
      };
      const bornRps = round1(median(born.map((x) => x.rps)));
      const row: Row = {
        what,
        herald,
        ceiling,
        ratio: round2(herald.rps / ceiling.rps),
        ...(sameClasses && { sameClasses: { rps: bornRps, ratio: round2(herald.rps / bornRps) } }),
        rounds,
        bar,
      };
      rows.push(row);
      print(row);
    };

    if (runs('v2'))
      await acceptRow(
        'V2 sends accepted, 64 connections, 1 hosted instance',
        '/api/v2/message/send',
        v2Body(v2One),
        64,
        { hosted: 1, peer: 0 },
        '≥ 0.6× bare Express, p99 < 50 ms',
        true,
      );
    if (runs('v1'))
      await acceptRow(
        'V1 mode: async accepted, 64 connections, 1 hosted instance',
        '/api/v1/message/send',
        v1Body,
        64,
        { hosted: 1, peer: 0 },
        '≥ 0.6× bare Express, p99 < 50 ms',
      );
    if (runs('two'))
      await acceptRow(
        'V2 sends accepted, 20 connections, 2 instances (webhook + hosted)',
        '/api/v2/message/send',
        v2Body(v2Two),
        20,
        { hosted: 1, peer: 1 },
        '—',
      );

    // Deliveries end to end: the clock runs from the first send to the last delivery's
    // arrival at the peer, so deliveries overlap the sends still coming in.
    const delivered: number[] = [];
    const peerDirect: number[] = [];
    const deliveryCpu: number[] = [];
    for (let i = 0; i < (runs('deliver') ? rounds : 0); i++) {
      peerDirect.push((await load(`${peerUrl}/direct`, v2Body(v2Hooks), 64)).rps);
      const cpuBefore = heraldCpuMs();
      delivered.push(await deliverAll(`${heraldUrl}/api/v2/message/send`, v2Body(v2Hooks)));
      // deliverAll counted the peer from zero; a quiet second shows nothing more arrives.
      peerExpected = 2 * sends;
      await settle(0);
      deliveryCpu.push((heraldCpuMs() - cpuBefore) / (2 * sends));
    }
    if (runs('deliver')) {
      const herald = {
        deliveriesPerSecond: round1(median(delivered)),
        deliveries: 2 * sends,
        // Accepting the sends and delivering them, per delivery.
        cpuMsPerDelivery: round2(median(deliveryCpu)),
      };
      const ceiling = { rps: round1(median(peerDirect)) };
      const row = {
        what: `Deliveries end to end: ${sends} V2 sends × 2 webhook instances to a loopback peer (all arrived)`,
        herald,
        ceiling,
        ratio: round2(herald.deliveriesPerSecond / ceiling.rps),
        rounds,
        bar: '≥ 0.25× the peer loaded directly',
      };
      rows.push(row);
      print(row);
    }

    // The write worker's effect: a Herald of its own for each mode, V2 sends at a fixed rate
    // (the same work for both), and the CPU time of each of its threads per send; then what
    // each mode does at full speed on this machine: accepting, and delivering.
    if (runs('worker')) {
      const rate = quick ? 1000 : 2000;
      const figures: Record<string, number> = {};
      for (const mode of ['off', 'on'] as const) {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'herald-bench-worker-'));
        const workerPort = await freePort();
        const own = await startHerald(dir, workerPort, undefined, { HERALD_WRITE_WORKER: mode });
        try {
          const url = `http://127.0.0.1:${workerPort}`;
          const c = new Console(url);
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
          const hooksHere = [
            await c.channel('webhook', { url: `${peerUrl}/hook-a` }),
            await c.channel('webhook', { url: `${peerUrl}/hook-b` }),
          ];
          const hooksToken = await c.token('templates', hooksHere);
          for (let i = 0; i < rounds; i++) {
            const bareRps = (await load(`${bareUrl}/api/v2/message/send`, v2Body(token), 64)).rps;
            fullSpeedAccept.push((await load(send, v2Body(token), 64)).rps / bareRps);
            fullSpeedDeliver.push(await deliverAll(send, v2Body(hooksToken)));
          }
          // Against stock bare Express, loaded just before in each round.
          figures[`${mode}AcceptRatio`] = round2(median(fullSpeedAccept));
          figures[`${mode}DeliveriesPerSecond`] = round1(median(fullSpeedDeliver));
        } finally {
          await stopGroup(own.child);
          rmSync(dir, { recursive: true, force: true });
        }
      }
      const row: Row = {
        what: `HERALD_WRITE_WORKER off and on: CPU µs per send by thread at a fixed ${rate} V2 sends/s (64 connections, 1 hosted instance); at full speed, V2 sends accepted (the same load, as a ratio to stock bare Express) and deliveries end to end (${sends} sends × 2 webhook instances)`,
        herald: figures,
        rounds,
        bar: '— (what the write worker moves off the main thread, and what it costs)',
      };
      rows.push(row);
      print(row);
    }

    await stopGroup(herald.child);
    if (profileDir) {
      const profile = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      console.log(
        `CPU profile of the server: ${profile ? path.join(profileDir, profile) : 'none written'}`,
      );
    }

    // Starts on the data folder this run filled, as a service (node out/server/cli.js) and as
    // a user does (npm start, whose group includes npm itself).
    const startPort = await freePort();
    const flags = ['--headless', '--port', String(startPort), '--data-dir', dataDir];
    for (const [what, command, args] of [
      ['node out/server/cli.js', process.execPath, [cliFile, ...flags.slice(1)]],
      ['npm start', 'npm', ['start', '--', ...flags]],
    ] as const) {
      if (!runs('start')) break;
      const s: Array<{ startMs: number; idleMb: number; pssMb: number | null }> = [];
      for (let i = 0; i < starts; i++)
        s.push(await measureStart(what, command, [...args], startPort));
      const row = {
        what: `${what} on an existing data folder: first answer, and idle memory of the process group (RSS summed per process; PSS, shared pages counted once)`,
        herald: {
          startMs: Math.round(median(s.map((x) => x.startMs))),
          idleRssMb: round1(median(s.map((x) => x.idleMb))),
          ...(s.every((x) => x.pssMb !== null)
            ? { idlePssMb: round1(median(s.map((x) => x.pssMb ?? 0))) }
            : {}),
        },
        rounds: starts,
        bar: 'first answer < 1500 ms, idle group < 120 MB',
      };
      rows.push(row);
      print(row);
    }
  } finally {
    await stopGroup(herald.child);
    await stopGroup(bare.child);
    await stopGroup(bareBorn.child);
    await stopGroup(peer.child);
    rmSync(dataDir, { recursive: true, force: true });
  }

  const cpus = os.cpus();
  const report = {
    machine: {
      cores: cpus.length,
      cpu: cpus[0]?.model ?? 'unknown',
      memoryGb: round1(os.totalmem() / 2 ** 30),
      os: `${os.type()} ${os.release()}`,
      node: process.version,
      date: new Date().toISOString(),
    },
    settings: { rounds, seconds, sends, starts, idleSeconds, quick },
    rows,
  };
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written to ${path.relative(process.cwd(), outFile)}`);
}

function print(row: Row) {
  const fmt = (o: Record<string, number> | undefined) =>
    o
      ? Object.entries(o)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')
      : '';
  const ceiling = row.ceiling ? ` | ceiling: ${fmt(row.ceiling)} | ratio ${row.ratio}` : '';
  const same = row.sameClasses
    ? `\n  bare Express with Herald's request classes: rps ${row.sameClasses.rps} | ratio ${row.sameClasses.ratio}`
    : '';
  console.log(`${row.what}\n  Herald: ${fmt(row.herald)}${ceiling} | bar: ${row.bar}${same}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
