/**
 * `npm run bench -- --postgres`: accepted sends per second and deliveries per second to a
 * loopback webhook peer, for 1, 2 and 3 Herald processes on one PostgreSQL database beside one
 * process on SQLite, in the same run. Each process runs the production bundle with its own data
 * folder and port, the same database URL and the same key; the sends are spread evenly over
 * the processes (one autocannon per process, the connections divided between them). Every
 * PostgreSQL configuration gets a fresh database, dropped after it. Medians of rounds, and
 * ratios to the SQLite row; never pass/fail: refused sends, deliveries still missing after
 * --wait seconds, repeats and the processes' warnings are counted and printed beside them.
 *
 *   npm run bench -- --postgres [--quick] [--rounds 3] [--sends 2000] [--connections 24]
 *                               [--processes 1,2,3] [--wait 120] [--postgres-url postgres://…/postgres]
 *
 * Writes bench/results/postgres.json (--quick: postgres-quick.json; --out FILE).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import autocannon from 'autocannon';
import pg, { type Client } from 'pg';

import { appRoot } from '../server/lib/app-root';
import { cliFile, ensureServerBuilt } from './build-server.mjs';
import { cpuMs, spawnUntil, stopGroup, type Spawned } from './bench/processes';
import { ConsoleClient, freePort, median, round1, round2 } from './bench/shared';

const root = appRoot(import.meta.url);
const ADMIN = { username: 'bench', password: 'bench password 1234' };
/** One key for every process of a configuration, as a team's processes share theirs. */
const SHARED_KEY = 'bench-postgres-shared-key';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--postgres'),
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    sends: { type: 'string' },
    connections: { type: 'string' },
    processes: { type: 'string' },
    wait: { type: 'string' },
    'postgres-url': { type: 'string' },
    out: { type: 'string' },
  },
});
const quick = values.quick;
const rounds = Number(values.rounds ?? (quick ? 1 : 3));
const sends = Number(values.sends ?? (quick ? 600 : 2000));
const connections = Number(values.connections ?? 24);
const waitSeconds = Number(values.wait ?? 120);
const processCounts = (values.processes ?? '1,2,3').split(',').map(Number);
const adminUrl =
  values['postgres-url'] ??
  process.env.HERALD_BENCH_POSTGRES_URL ??
  'postgres://postgres@127.0.0.1:5432/postgres';
const outFile = path.resolve(
  values.out ??
    path.join(root, 'bench', 'results', quick ? 'postgres-quick.json' : 'postgres.json'),
);
for (const [name, n] of Object.entries({ rounds, sends, connections, wait: waitSeconds })) {
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
}
if (processCounts.some((n) => !Number.isInteger(n) || n <= 0)) {
  throw new Error('--processes takes positive integers, e.g. 1,2,3');
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh database on the server of --postgres-url, and the URL Herald takes for it. */
async function createDatabase(): Promise<{ name: string; url: string }> {
  const name = `herald_bench_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

const dropDatabase = (name: string) =>
  admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

interface Process {
  url: string;
  spawned: Spawned;
  dataDir: string;
}

async function startHerald(databaseUrl: string | null): Promise<Process> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'herald-bench-pg-'));
  const port = await freePort();
  const spawned = await spawnUntil(
    process.execPath,
    [cliFile, '--port', String(port), '--data-dir', dataDir],
    /Herald is running at/,
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HERALD_LOG: 'warn',
        // Warnings are counted as `[WARN]` in the output.
        HERALD_LOG_FORMAT: 'text',
        HERALD_ADMIN_USER: ADMIN.username,
        HERALD_ADMIN_PASSWORD: ADMIN.password,
        HERALD_SECRET_KEY: SHARED_KEY,
        HERALD_DATABASE_URL: databaseUrl ?? '',
      },
    },
  );
  return { url: `http://127.0.0.1:${port}`, spawned, dataDir };
}

interface Row {
  what: string;
  processes: number;
  database: 'sqlite' | 'postgres';
  acceptedPerSecond: number;
  deliveriesPerSecond: number;
  /** Herald CPU (all processes) per delivery, accepting included. */
  cpuMsPerDelivery: number;
  /** Deliveries beyond two per accepted send (none expected: no process is killed here). */
  repeats: number;
  /** Sends answered with an error, over all rounds. */
  refused: number;
  /**
   * Sends with no answer within autocannon's 10 s (or a broken connection): Herald may still
   * have accepted them, and their deliveries then show up as repeats.
   */
  unanswered: number;
  /** Deliveries of accepted sends that had not arrived after --wait seconds. */
  missing: number;
  /** Lines the processes logged at WARN or ERROR. */
  warnings: number;
  ratioToSqlite?: { accepted: number; deliveries: number };
  rounds: number;
}

interface Peer {
  url: string;
  stats(method?: string): Promise<{ count: number; lastAt: number }>;
}

/** Splits n into `parts` near-equal whole shares. */
const shares = (n: number, parts: number) =>
  Array.from({ length: parts }, (_, i) => Math.floor(n / parts) + (i < n % parts ? 1 : 0));

/**
 * Waits until the peer holds `expected` deliveries (or --wait runs out), then for a quiet
 * second, so that anything arriving late is counted as a repeat rather than missed.
 */
async function waitForDeliveries(peer: Peer, expected: number) {
  const deadline = Date.now() + waitSeconds * 1000;
  while ((await peer.stats()).count < expected && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  let last = await peer.stats();
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = await peer.stats();
    if (now.count === last.count) return last;
    last = now;
  }
}

/**
 * One autocannon run, and when its last answer came: the promise itself settles on the load
 * generator's next one-second tick, which would count idle time as sending time.
 */
function sendAll(options: autocannon.Options) {
  return new Promise<autocannon.Result & { lastAnswerAt: number }>((resolve, reject) => {
    let lastAnswerAt = Date.now();
    const instance = autocannon(options, (err, result) =>
      err ? reject(err) : resolve({ ...result, lastAnswerAt }),
    );
    instance.on('response', () => (lastAnswerAt = Date.now()));
  });
}

async function measure(database: 'sqlite' | 'postgres', n: number, peer: Peer): Promise<Row> {
  const db = database === 'postgres' ? await createDatabase() : null;
  const herald: Process[] = [];
  try {
    // The first process runs the migrations and creates the administrator; the others join.
    herald.push(await startHerald(db?.url ?? null));
    herald.push(...(await Promise.all(shares(n - 1, n - 1).map(() => startHerald(db!.url)))));
    const api = new ConsoleClient(herald[0].url);
    await api.call('POST', '/login', ADMIN);
    const hooks: number[] = [];
    for (const hook of ['hook-a', 'hook-b']) {
      const channel = await api.call<{ id: number }>('POST', '/channels', {
        name: `bench-${hook}`,
        type: 'webhook',
        config: { url: `${peer.url}/${hook}` },
      });
      hooks.push(channel.id);
    }
    const template = await api.call<{ id: number }>('POST', '/templates', {
      name: 'bench',
      text: 'host {{host}} at {{pct}}%',
    });
    for (const channelId of hooks) {
      await api.call('POST', `/templates/${template.id}/instances`, {
        channelId,
        contentType: 'text',
      });
    }
    const { token } = await api.call<{ token: string }>('GET', `/templates/${template.id}/token`);
    const body = JSON.stringify({
      token,
      title: 'bench',
      placeholders: { host: 'web-3', pct: 98 },
    });

    const accepted: number[] = [];
    const delivered: number[] = [];
    const cpu: number[] = [];
    let repeats = 0;
    let refused = 0;
    let unanswered = 0;
    let missing = 0;
    for (let round = 0; round < rounds; round++) {
      await peer.stats('DELETE');
      const cpuBefore = herald.map((h) => cpuMs(h.spawned.child.pid!) ?? NaN);
      const started = Date.now();
      // Sends and connections spread evenly: one load generator per process, all at once.
      const loads = await Promise.all(
        herald.map((h, i) =>
          sendAll({
            url: `${h.url}/api/v2/message/send`,
            method: 'POST',
            connections: shares(connections, n)[i],
            amount: shares(sends, n)[i],
            headers: { 'Content-Type': 'application/json' },
            body,
          }),
        ),
      );
      const acceptedAt = Math.max(...loads.map((l) => l.lastAnswerAt));
      const ok = loads.reduce((sum, r) => sum + r['2xx'], 0);
      refused += loads.reduce((sum, r) => sum + r.non2xx, 0);
      unanswered += loads.reduce((sum, r) => sum + r.errors, 0);
      const expected = 2 * ok;
      const arrived = await waitForDeliveries(peer, expected);
      if (arrived.count < expected) missing += expected - arrived.count;
      else repeats += arrived.count - expected;
      const cpuAfter = herald.map((h) => cpuMs(h.spawned.child.pid!) ?? NaN);
      accepted.push(ok / ((acceptedAt - started) / 1000));
      delivered.push(arrived.count / ((arrived.lastAt - started) / 1000));
      cpu.push(cpuAfter.reduce((s, v, i) => s + v - cpuBefore[i], 0) / arrived.count);
    }
    const warnings = herald.reduce(
      (n, h) => n + (h.spawned.output().match(/\[(WARN|ERROR)\]/g)?.length ?? 0),
      0,
    );
    const label = database === 'postgres' ? 'PostgreSQL' : 'SQLite';
    return {
      what: `${n} process${n > 1 ? 'es' : ''} on ${label}`,
      processes: n,
      database,
      acceptedPerSecond: round1(median(accepted)),
      deliveriesPerSecond: round1(median(delivered)),
      cpuMsPerDelivery: round2(median(cpu)),
      repeats,
      refused,
      unanswered,
      missing,
      warnings,
      rounds,
    };
  } finally {
    await Promise.all(herald.map((h) => stopGroup(h.spawned.child)));
    for (const h of herald) rmSync(h.dataDir, { recursive: true, force: true });
    if (db) await dropDatabase(db.name);
  }
}

async function main() {
  if (await ensureServerBuilt()) console.log('built out/server (the production server bundle)');
  // Fails here, before anything is started, when the server cannot be reached.
  await admin((c) => c.query('SELECT 1'));
  const peerProcess = await spawnUntil(
    process.execPath,
    [path.join(root, 'scripts/bench/peer.mjs')],
    /^(\d+)\n/m,
    { cwd: root },
  );
  const peerUrl = `http://127.0.0.1:${peerProcess.match[1]}`;
  const peer: Peer = {
    url: peerUrl,
    stats: async (method = 'GET') =>
      (await (await fetch(`${peerUrl}/stats`, { method })).json()) as {
        count: number;
        lastAt: number;
      },
  };
  console.log(
    `${sends} V2 sends per round, each to 2 webhook instances (${2 * sends} deliveries), ` +
      `${connections} connections in all, ${rounds} round(s) per row`,
  );
  const rows: Row[] = [];
  try {
    const sqlite = await measure('sqlite', 1, peer);
    rows.push(sqlite);
    print(sqlite);
    for (const n of processCounts) {
      const row = await measure('postgres', n, peer);
      row.ratioToSqlite = {
        accepted: round3(row.acceptedPerSecond / sqlite.acceptedPerSecond),
        deliveries: round3(row.deliveriesPerSecond / sqlite.deliveriesPerSecond),
      };
      rows.push(row);
      print(row);
    }
  } finally {
    await stopGroup(peerProcess.child);
  }

  console.log(
    '\n| Herald | accepted sends/s | deliveries/s | CPU ms per delivery | × SQLite (sends, deliveries) |',
  );
  console.log('|---|---|---|---|---|');
  for (const r of rows) {
    const ratio = r.ratioToSqlite
      ? `${r.ratioToSqlite.accepted}, ${r.ratioToSqlite.deliveries}`
      : '1, 1';
    console.log(
      `| ${r.what} | ${r.acceptedPerSecond} | ${r.deliveriesPerSecond} | ${r.cpuMsPerDelivery} | ${ratio} |`,
    );
  }

  const cpus = os.cpus();
  const report = {
    machine: {
      cores: cpus.length,
      cpu: cpus[0]?.model ?? 'unknown',
      loadAverage: os.loadavg().map(round2),
      node: process.version,
      postgres: await admin(
        async (c) => (await c.query('SHOW server_version')).rows[0].server_version,
      ),
      date: new Date().toISOString(),
    },
    settings: { rounds, sends, connections, processes: processCounts, quick },
    rows,
  };
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written to ${path.relative(process.cwd(), outFile)}`);
}

function print(row: Row) {
  const ratio = row.ratioToSqlite
    ? ` | × SQLite: sends ${row.ratioToSqlite.accepted}, deliveries ${row.ratioToSqlite.deliveries}`
    : '';
  console.log(
    `${row.what}: ${row.acceptedPerSecond} accepted sends/s, ${row.deliveriesPerSecond} deliveries/s, ` +
      `${row.cpuMsPerDelivery} ms CPU per delivery${ratio}\n` +
      `  sends refused ${row.refused}, deliveries missing ${row.missing}, repeated ${row.repeats}; ` +
      `${row.warnings} warning or error lines logged`,
  );
}

/** Settles when the benchmark is done; scripts/bench.ts awaits it for `--postgres`. */
export const finished = main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
