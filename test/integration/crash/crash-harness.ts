import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import sqlite3 from 'sqlite3';
import { expect } from 'vitest';

import type { CrashPoint } from '../../../server/lib/crash-point';
import { ADMIN, ConsoleClient, textInstances } from '../../helpers/herald';
import { freePort, startHeraldProcess, type HeraldProcess } from '../../helpers/herald-process';
import { startHttpPeer, type HttpPeer, type ReceivedRequest } from '../../helpers/recording-peer';
import { keptDatabases } from '../../helpers/test-database';

/** Every send goes to two webhook channels, told apart at the peer by the path. */
export const PATHS = ['/a', '/b'] as const;

export interface CrashScenario {
  point: CrashPoint;
  /** The process dies the n-th time it reaches the point. */
  at: number;
  sends: number;
  connections: number;
  /** Signs both channels' deliveries (webhook-id header). */
  signed?: boolean;
  /** How long the peer holds each request before answering 200. */
  peerDelayMs?: number;
}

export interface DbDelivery {
  id: number;
  sendId: number;
  /** `<path>|<send title>`: how the peer's requests are matched to rows. */
  key: string;
  status: string;
}

export interface DbState {
  sends: Map<string, { id: number; status: string; deliveryCount: number }>;
  deliveries: Map<string, DbDelivery>;
  /** Delivery rows whose send row does not exist. */
  orphanDeliveries: number;
  /** Per send id, how many delivery rows it has. */
  deliveriesPerSend: Map<number, number>;
}

export interface Receipt {
  key: string;
  title: string;
  /** Received while the crashed process lived, or from the process started after it. */
  phase: 'crashed' | 'restarted';
  webhookId: string | undefined;
}

export interface CrashRun {
  /** Titles of sends answered code 200. */
  answered: Set<string>;
  /** Titles of sends that got no answer (the connection died with the process). */
  unanswered: Set<string>;
  /** Answers other than code 200, which none of these sends should get. */
  refused: string[];
  crashOutput: string;
  restartOutput: string;
  crashExit: { code: number | null; signal: NodeJS.Signals | null };
  restartExit: { code: number | null; signal: NodeJS.Signals | null };
  /** The database as the crash left it (read from a copy, before the restart touched it). */
  atKill: DbState;
  /** The database after the restarted process delivered everything and stopped cleanly. */
  final: DbState;
  receipts: Receipt[];
}

function query<T>(db: sqlite3.Database, sql: string): Promise<T[]> {
  return new Promise((resolve, reject) =>
    db.all(sql, (err, rows) => (err ? reject(err) : resolve(rows as T[]))),
  );
}

type SendRow = { id: number; title: string; status: string; delivery_count: number };
type DeliveryRow = {
  id: number;
  send_id: number;
  channel_id: number;
  status: string;
  title: string | null;
};
const SENDS_SQL = 'SELECT id, title, status, delivery_count FROM sends';
const DELIVERIES_SQL = `SELECT d.id, d.send_id, d.channel_id, d.status, s.title
  FROM deliveries d LEFT JOIN sends s ON s.id = d.send_id`;

/**
 * The rows of a data folder's database. SQLite: from a copy of its files, so the folder stays
 * exactly as the crash left it for the restart (opening it would recover the WAL). PostgreSQL
 * (the folder's test database): read as they are, which changes nothing.
 */
async function loadRows(dataDir: string): Promise<{ sends: SendRow[]; deliveries: DeliveryRow[] }> {
  const database = keptDatabases.get(dataDir);
  if (database) {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return {
        sends: (await client.query<SendRow>(SENDS_SQL)).rows,
        deliveries: (await client.query<DeliveryRow>(DELIVERIES_SQL)).rows,
      };
    } finally {
      await client.end();
    }
  }
  const copy = mkdtempSync(join(tmpdir(), 'herald-crash-copy-'));
  try {
    for (const name of ['herald.db', 'herald.db-wal']) {
      if (existsSync(join(dataDir, name))) copyFileSync(join(dataDir, name), join(copy, name));
    }
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const d: sqlite3.Database = new sqlite3.Database(join(copy, 'herald.db'), (err) =>
        err ? reject(err) : resolve(d),
      );
    });
    try {
      return {
        sends: await query<SendRow>(db, SENDS_SQL),
        deliveries: await query<DeliveryRow>(db, DELIVERIES_SQL),
      };
    } finally {
      await new Promise((resolve) => db.close(resolve));
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The sends and deliveries of a data folder's database, as the last process left them. */
export async function readDb(dataDir: string, channelPaths: Map<number, string>): Promise<DbState> {
  const { sends, deliveries } = await loadRows(dataDir);
  const state: DbState = {
    sends: new Map(
      sends.map((s) => [s.title, { id: s.id, status: s.status, deliveryCount: s.delivery_count }]),
    ),
    deliveries: new Map(),
    orphanDeliveries: 0,
    deliveriesPerSend: new Map(),
  };
  for (const d of deliveries) {
    if (d.title === null) {
      state.orphanDeliveries += 1;
      continue;
    }
    const key = `${channelPaths.get(d.channel_id)}|${d.title}`;
    state.deliveries.set(key, { id: d.id, sendId: d.send_id, key, status: d.status });
    state.deliveriesPerSend.set(d.send_id, (state.deliveriesPerSend.get(d.send_id) ?? 0) + 1);
  }
  return state;
}

const titleOf = (r: ReceivedRequest) => (r.json as { title?: string } | undefined)?.title ?? '';

/** Fires the sends over `connections` parallel clients until each got an answer or an error. */
async function fireSends(url: string, token: string, s: CrashScenario) {
  const answered = new Set<string>();
  const unanswered = new Set<string>();
  const refused: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < s.sends) {
      const title = `crash-${s.point}-${next++}`;
      try {
        const res = await fetch(`${url}/api/v2/message/send`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ token, title }),
        });
        const body = (await res.json()) as { code: number; msg: string };
        if (body.code === 200) answered.add(title);
        else refused.push(`${title}: ${res.status} ${JSON.stringify(body)}`);
      } catch {
        unanswered.add(title);
      }
    }
  };
  await Promise.all(Array.from({ length: s.connections }, worker));
  return { answered, unanswered, refused };
}

/**
 * One crash: a fresh Herald process armed to SIGKILL itself at `point`, configured over its
 * console, takes `sends` concurrent sends (each to two webhook channels) until it dies; then a
 * second process on the same data folder delivers what was committed and stops cleanly.
 */
export async function runCrashScenario(s: CrashScenario): Promise<CrashRun> {
  const dataDir = mkdtempSync(join(tmpdir(), `herald-crash-${s.point}-`));
  const peer: HttpPeer = await startHttpPeer({
    status: 200,
    body: '{"ok":true}',
    delayMs: s.peerDelayMs,
  });
  const processes: HeraldProcess[] = [];
  try {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const crashing = await startHeraldProcess(dataDir, port, {
      HERALD_TEST_CRASH_AT: `${s.point}:${s.at}`,
      // On SQLite, every accept cycle is the write worker's from the first (a worker started
      // on demand would leave the first cycles, and so the crash, to the main thread).
      HERALD_WRITE_WORKER: 'always',
    });
    processes.push(crashing);

    const client = new ConsoleClient(url);
    await client.ok('POST', '/login', ADMIN);
    const channelPaths = new Map<number, string>();
    for (const path of PATHS) {
      const signingSecret = s.signed ? `whsec_${randomBytes(32).toString('base64')}` : undefined;
      const channel = await client.ok('POST', '/channels', {
        name: `crash${path.replace('/', '-')}`,
        type: 'webhook',
        config: { url: `${peer.url}${path}`, ...(signingSecret ? { signingSecret } : {}) },
      });
      channelPaths.set(channel.id as number, path);
    }
    const { token } = await client.createTemplate(
      { name: 'crash', text: 'survive' },
      textInstances([...channelPaths.keys()]),
    );

    const sent = await fireSends(url, token, s);
    const crashExit = await crashing.exit;
    const atKill = await readDb(dataDir, channelPaths);

    // Everything the crashed process sent has reached the peer once its connections are closed
    // (each closes after its data): on a busy machine the peer may still be reading them here.
    await peer.waitForNoConnections();
    const boundary = peer.received.length;
    const restarted = await startHeraldProcess(dataDir, port);
    processes.push(restarted);
    const keys = (from: number) =>
      new Set(peer.received.slice(from).map((r) => `${r.url}|${titleOf(r)}`));
    const expected = [...atKill.deliveries.keys()];
    await waitUntil(
      () => {
        const got = keys(0);
        return expected.every((k) => got.has(k));
      },
      () => `never delivered: ${expected.filter((k) => !keys(0).has(k)).join(', ')}`,
    );
    restarted.child.kill('SIGTERM');
    const restartExit = await restarted.exit;
    const final = await readDb(dataDir, channelPaths);

    return {
      ...sent,
      crashOutput: crashing.output(),
      restartOutput: restarted.output(),
      crashExit,
      restartExit,
      atKill,
      final,
      receipts: peer.received.map((r, i) => ({
        key: `${r.url}|${titleOf(r)}`,
        title: titleOf(r),
        phase: i < boundary ? 'crashed' : 'restarted',
        webhookId: r.headers['webhook-id'] as string | undefined,
      })),
    };
  } finally {
    for (const p of processes) p.child.kill('SIGKILL');
    await peer.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function waitUntil(done: () => boolean, why: () => string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(why());
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * What every crash must leave true, whatever the point:
 * - the process died at the point, by SIGKILL, and the restart stopped cleanly;
 * - no send is half-written: each send row has all its deliveries, no delivery lacks its send;
 * - every answered send was committed and each of its deliveries reached the peer;
 * - the peer got nothing that is not in the database (a rolled-back send is never delivered);
 * - a delivery reached the peer twice only if it was in flight at the kill: received by the
 *   crashed process's attempt, still `sending` in the database; a recorded one never again.
 */
export function expectAtLeastOnce(run: CrashRun, point: CrashPoint) {
  expect(run.crashExit.signal).toBe('SIGKILL');
  expect(run.crashOutput).toContain(`herald: test crash at ${point}`);
  expect(run.restartExit, run.restartOutput).toEqual({ code: 0, signal: null });
  expect(run.refused).toEqual([]);

  for (const db of [run.atKill, run.final]) {
    expect(db.orphanDeliveries).toBe(0);
    for (const [title, send] of db.sends) {
      expect({ title, deliveries: db.deliveriesPerSend.get(send.id) ?? 0 }).toEqual({
        title,
        deliveries: PATHS.length,
      });
      expect(send.deliveryCount).toBe(PATHS.length);
    }
  }
  // The restart neither loses committed sends nor finds new ones, and finishes them all.
  expect([...run.final.sends.keys()].sort()).toEqual([...run.atKill.sends.keys()].sort());
  expect([...run.final.sends.values()].filter((s) => s.status !== 'sent')).toEqual([]);
  expect([...run.final.deliveries.values()].filter((d) => d.status !== 'sent')).toEqual([]);

  const received = new Map<string, Receipt[]>();
  for (const r of run.receipts) received.set(r.key, [...(received.get(r.key) ?? []), r]);
  for (const title of run.answered) {
    expect(run.atKill.sends.has(title), `answered send ${title} was committed`).toBe(true);
    for (const path of PATHS) {
      expect(received.has(`${path}|${title}`), `${path}|${title} delivered`).toBe(true);
    }
  }
  expect([...received.keys()].filter((k) => !run.final.deliveries.has(k))).toEqual([]);

  for (const [key, copies] of received) {
    const atKill = run.atKill.deliveries.get(key)!;
    if (copies.length > 1) {
      expect({ key, phases: copies.map((c) => c.phase), atKill: atKill.status }).toEqual({
        key,
        phases: ['crashed', 'restarted'],
        atKill: 'sending',
      });
    }
    if (atKill.status === 'sent') {
      expect({ key, phases: copies.map((c) => c.phase) }).toEqual({ key, phases: ['crashed'] });
    }
  }
}

/** Receipts that repeat a delivery the peer already had. */
export function duplicates(run: CrashRun): Receipt[] {
  const seen = new Set<string>();
  return run.receipts.filter((r) => seen.has(r.key) || !seen.add(r.key));
}
