import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { noMentions } from '../../../server/channels/channel-adapter';
import type { Database } from '../../../server/db/database';
import { recordAttempts } from '../../../server/queue/delivery-programs';
import {
  claimDue,
  defer,
  insertDeliveries,
  insertSends,
  recordOutcomes,
  type ClaimedDelivery,
  type NewSend,
} from '../../../server/queue/store/hot-path';
import { recoverClaims } from '../../../server/queue/store/hot-path-recovery';
import { migrate } from '../../../server/db/migrate';
import { initModels } from '../../../server/db/models';
import { openPostgresDatabase } from '../../../server/db/postgres/open-postgres';
import { createTestDatabase, dropTestDatabase } from '../../helpers/test-database';

/**
 * Two Herald databases opened on one PostgreSQL database: two pools and two Writers, which is
 * what two processes are to the database.
 */
let name: string;
let url: string;
let a: Database;
let b: Database;
/** Databases open, closed in afterAll unless a test closed them (a process that stopped). */
const open = new Set<Database>();

async function start(): Promise<Database> {
  const db = await openPostgresDatabase(url);
  open.add(db);
  // As each process's dispatcher does at start: this also registers it as running.
  await db.writer.run(({ sql }) => recoverClaims(sql, NOW));
  return db;
}

async function stop(db: Database): Promise<void> {
  open.delete(db);
  await db.close();
}

beforeAll(async () => {
  const created = await createTestDatabase();
  name = created.name;
  url = created.url;
  const first = await openPostgresDatabase(url);
  initModels(first.sequelize);
  await migrate(first.sequelize);
  await first.close();
  a = await start();
  b = await start();
});
afterAll(async () => {
  for (const db of open) await stop(db);
  await dropTestDatabase(name);
});

const NOW = 1_800_000_000_000;
const LEASE = 60_000;

const send = (title: string, deliveryCount: number): NewSend => ({
  api: 'v2',
  taskId: null,
  templateId: null,
  sourceName: 'test',
  title,
  text: title,
  html: null,
  markdown: null,
  url: null,
  request: {},
  deliveryCount,
});

/** A send with `n` deliveries due at NOW - 1; their ids. */
async function queue(title: string, n: number): Promise<{ sendId: number; ids: number[] }> {
  return a.writer.run(async ({ sql }) => {
    const [sendId] = await insertSends(sql, [send(title, n)], NOW);
    const ids = await insertDeliveries(
      sql,
      Array.from({ length: n }, () => ({
        sendId,
        instanceId: null,
        channelId: 1,
        channelType: 'webhook',
        contentType: 'text' as const,
        recipient: null,
        title,
        content: title,
        url: null,
        mentions: noMentions(),
        nextAttemptAt: NOW - 1,
      })),
      NOW,
    );
    return { sendId, ids };
  });
}

let claims = 0;
const claim = (db: Database, now: number, limit: number) =>
  db.writer.run(({ sql }) =>
    claimDue(sql, {
      now,
      leaseUntil: now + LEASE,
      lease: `test.${++claims}`,
      limit,
      exclude: [],
      wallNow: now,
      // Every claim here may take over a run-out lease, as the dispatcher's do now and then.
      expired: true,
    }),
  );

/** A finished attempt of a claimed delivery, as the dispatcher records it. */
const outcome = (claimed: ClaimedDelivery, status: 'sent' | 'failed') => ({
  id: claimed.id,
  lease: claimed.lease,
  status,
  outcome: status === 'sent' ? ('sent' as const) : ('permanent' as const),
  error: status === 'sent' ? null : 'refused',
  reply: null,
  startedAt: NOW,
  durationMs: 5,
  retryAt: null,
});

// One journey: its steps build on each other, so they run in order even when CI shuffles.
describe('claims on PostgreSQL, two processes on one queue', { shuffle: false }, () => {
  it('skip rows another process is claiming instead of taking or waiting for them', async () => {
    const { ids } = await queue('skip locked', 20);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let aClaimed: number[] = [];
    // A claims 8 in a cycle that stays open (its row locks held, nothing committed) ...
    let claimedInA!: () => void;
    const aHasClaimed = new Promise<void>((r) => (claimedInA = r));
    const aCycle = a.writer.run(async ({ sql }) => {
      aClaimed = (
        await claimDue(sql, {
          now: NOW,
          leaseUntil: NOW + LEASE,
          lease: 'a.open',
          limit: 8,
          exclude: [],
          wallNow: NOW,
          expired: true,
        })
      ).map((d) => d.id);
      claimedInA();
      await gate;
    });
    await aHasClaimed;
    // ... while B claims: it gets the next 8, not A's, and does not wait for A's commit.
    const bClaimed = (await claim(b, NOW, 8)).map((d) => d.id);
    release();
    await aCycle;
    expect(aClaimed).toEqual(ids.slice(0, 8));
    expect(bClaimed).toEqual(ids.slice(8, 16));
    // Committed claims hold their lease: neither process takes them again before it ends.
    const rest = [...(await claim(a, NOW, 100)), ...(await claim(b, NOW, 100))].map((d) => d.id);
    expect(rest.sort((x, y) => x - y)).toEqual(ids.slice(16));
  });

  it('never hand one delivery to both when both claim as fast as they can', async () => {
    const { ids } = await queue('race', 300);
    const drain = async (db: Database) => {
      const got: number[] = [];
      for (;;) {
        const batch = await claim(db, NOW, 7);
        if (batch.length === 0) return got;
        got.push(...batch.map((d) => d.id));
      }
    };
    const [fromA, fromB] = await Promise.all([drain(a), drain(b)]);
    expect(fromA.filter((id) => fromB.includes(id))).toEqual([]);
    expect([...fromA, ...fromB].sort((x, y) => x - y)).toEqual(ids);
  });

  it('take over claims only once their lease ran out while their process may be alive', async () => {
    const { ids } = await queue('lease', 3);
    await claim(a, NOW, 3);
    // A process starting while A runs must not take back claims whose lease still holds.
    const c = await start();
    expect(await c.writer.run(({ sql }) => recoverClaims(sql, NOW + 1))).toBe(0);
    expect(await claim(c, NOW + LEASE - 1, 10)).toEqual([]);
    // Earlier tests' claims ran out with these: only this send's matter here.
    const takenOver = await claim(c, NOW + LEASE + 1, 1000);
    expect(takenOver.map((d) => d.id).filter((id) => ids.includes(id))).toEqual(ids);
    await stop(c);
  });

  it('roll a send up from both processes’ outcomes when they record them at once', async () => {
    const { sendId, ids } = await queue('roll-up', 2);
    const claimed = await claim(a, NOW, 2);
    expect(claimed.map((d) => d.id)).toEqual(ids);
    // A records the first delivery in a cycle that stays open; B records the second meanwhile.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let recordedInA!: () => void;
    const aHasRecorded = new Promise<void>((r) => (recordedInA = r));
    const aCycle = a.writer.run(async ({ sql }) => {
      const r = await recordOutcomes(sql, [outcome(claimed[0], 'sent')], NOW);
      recordedInA();
      await gate;
      return r;
    });
    await aHasRecorded;
    let bDone = false;
    const bCycle = b.writer
      .run(({ sql }) => recordOutcomes(sql, [outcome(claimed[1], 'failed')], NOW))
      .finally(() => (bDone = true));
    // A commits once B has finished or waits for a lock A holds (the send, locked to roll up).
    await waitUntil(async () => {
      const [row] = await a.read.all<{ n: number }>(
        'SELECT count(*) AS n FROM pg_locks WHERE NOT granted',
      );
      return bDone || row.n > 0;
    });
    release();
    const [fromA, fromB] = await Promise.all([aCycle, bCycle]);
    expect(fromA.sends).toEqual([]);
    // B counted A's committed outcome: one sent, one failed.
    expect(fromB.sends).toEqual([{ id: sendId, status: 'partial' }]);
    const [row] = await a.read.all<{ status: string }>('SELECT status FROM sends WHERE id = $1', [
      sendId,
    ]);
    expect(row.status).toBe('partial');
  });

  it('record only the outcome of the claim that holds a delivery once another process took it over', async () => {
    const {
      sendId,
      ids: [id],
    } = await queue('takeover', 1);
    const [fromA] = await claim(a, NOW, 1);
    expect(fromA.id).toBe(id);
    // A's attempt outlives its lease, and B takes the delivery over.
    const later = NOW + LEASE + 1;
    const fromB = (await claim(b, later, 1000)).find((d) => d.id === id)!;
    expect(fromB.lease).not.toBe(fromA.lease);
    const moment = { now: later, wallNow: later, leaseUntil: later + LEASE, lease: 'unused' };
    // A's late outcome and defer, each in a write cycle of A's: refused, and nothing changes.
    const [late] = await a.writer.run(({ sql }) =>
      recordAttempts(sql, [outcome(fromA, 'failed')], moment),
    );
    expect(late).toMatchObject({ recorded: false, leaseLost: true, sendStatus: null });
    expect(await a.writer.run(({ sql }) => defer(sql, fromA, later + 1_000, later))).toBe(false);
    const row = async () =>
      (
        await a.read.all<{ status: string; attempts: number; lease_token: string | null }>(
          'SELECT status, attempts, lease_token FROM deliveries WHERE id = $1',
          [id],
        )
      )[0];
    expect(await row()).toEqual({ status: 'sending', attempts: 0, lease_token: fromB.lease });
    // B's outcome is the one recorded.
    const [onTime] = await b.writer.run(({ sql }) =>
      recordAttempts(sql, [outcome(fromB, 'sent')], moment),
    );
    expect(onTime).toMatchObject({ recorded: true, leaseLost: false, sendStatus: 'sent' });
    expect(await row()).toEqual({ status: 'sent', attempts: 1, lease_token: null });
    const attempts = await a.read.all<{ outcome: string }>(
      'SELECT outcome FROM delivery_attempts WHERE delivery_id = $1',
      [id],
    );
    expect(attempts).toEqual([{ outcome: 'sent' }]);
    const [send] = await a.read.all<{ status: string }>('SELECT status FROM sends WHERE id = $1', [
      sendId,
    ]);
    expect(send.status).toBe('sent');
  });

  it('take back every claim at once when a process starts with no other running', async () => {
    const { ids } = await queue('alone', 2);
    await claim(a, NOW, 2);
    // Both processes stop (as a SIGKILL would, their connections end) with claims in hand.
    await stop(a);
    await stop(b);
    const d = await openPostgresDatabase(url);
    open.add(d);
    const recovered = await d.writer.run(({ sql }) => recoverClaims(sql, NOW + 1));
    expect(recovered).toBeGreaterThanOrEqual(2);
    const rows = await d.read.all<{ id: number; status: string }>(
      `SELECT id, status FROM deliveries WHERE status = 'sending'`,
    );
    expect(rows).toEqual([]);
    expect((await claim(d, NOW + 1, 1000)).map((x) => x.id)).toEqual(expect.arrayContaining(ids));
  });
});

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('waitUntil: condition not met');
}
