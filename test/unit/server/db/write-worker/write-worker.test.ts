import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

import { Worker } from 'node:worker_threads';

import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { readHeraldConfig } from '../../../../../server/config/herald-config';
import { openDatabase, type Database } from '../../../../../server/db/database';
import { migrate } from '../../../../../server/db/migrate';
import { initModels } from '../../../../../server/db/models';
import { fromWire, toWire } from '../../../../../server/db/write-worker/protocol';
import {
  AUTO_MIN_CPUS,
  effectiveWriteWorkerMode,
  RemoteCycles,
  WriteWorkerSlot,
} from '../../../../../server/db/write-worker/remote-cycles';
import { HeraldEvents } from '../../../../../server/events';
import { isDatabaseUnavailable } from '../../../../../server/lib/database-errors';
import { AppError } from '../../../../../server/lib/errors';
import { DeliveryState, type AcceptInput } from '../../../../../server/queue/delivery-state';
import { ManualClock } from '../../../../helpers/manual-clock';

// The suite's global setup builds the worker and names it in HERALD_WRITE_WORKER_FILE.
const delivery = (title: string | null, channelType: 'hosted' | 'webhook', stored: boolean) => ({
  instanceId: null,
  channelId: channelType === 'hosted' ? 1 : 2,
  channelType,
  contentType: 'text' as const,
  recipient: null,
  title: title as string,
  content: 'body',
  url: null,
  mentions: { mobiles: [], userIds: [], all: false },
  previewKey: channelType === 'hosted' ? `key-${Math.random().toString(36).slice(2)}` : null,
  storeOnAccept: stored,
});

/** A send to a hosted instance (stored with the accept unless `hosted` is false) and a webhook. */
const input = (title: string | null = 'worker test', hosted = true): AcceptInput => ({
  send: {
    api: 'v2',
    taskId: null,
    templateId: 1,
    sourceName: 'worker test',
    title: title as string,
    text: 'body',
    html: null,
    markdown: null,
    url: null,
    request: { title },
    deliveryCount: 2,
  },
  deliveries: [delivery(title, 'hosted', hosted), delivery(title, 'webhook', false)],
});

describe('the SQLite write worker', () => {
  let dir: string;
  let db: Database | null;
  const clock = new ManualClock();

  const open = async (env: Record<string, string> = {}) => {
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
    db = await openDatabase(join(dir, 'herald.db'));
    initModels(db.sequelize);
    await migrate(db.sequelize);
    const state = new DeliveryState({
      writer: db.writer,
      read: db.read,
      events: new HeraldEvents(),
      clock,
    });
    return { db, state };
  };
  const count = async (d: Database, sql: string) =>
    (await d.read.all<{ n: number }>(`SELECT count(*) AS n FROM ${sql}`))[0].n;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'herald-worker-'));
    db = null;
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts with the first burst and then writes the accept cycles, with the same answers', async () => {
    const { db, state } = await open({ HERALD_WRITE_WORKER: 'on' });
    const slot = db.writeWorker!;
    expect(slot.running).toBe(false);
    // The first cycle is written here while the worker starts.
    const first = await state.accept(input('first'));
    await slot.settled();
    expect(slot.running).toBe(true);
    const before = slot.cycles;
    const many = await Promise.all(
      Array.from({ length: 30 }, (_, i) => state.accept(input(`s${i}`))),
    );
    expect(slot.cycles).toBeGreaterThan(before);

    const all = [first, ...many];
    expect(new Set(all.map((a) => a.sendId)).size).toBe(31);
    for (const a of all) {
      expect(a.deliveryIds).toHaveLength(2);
      // The hosted delivery is stored with the accept, in the worker's transaction.
      expect(a.stored.map((s) => s.deliveryId)).toEqual([a.deliveryIds[0]]);
    }
    // Committed before the answers: the main thread's read connection sees every row.
    expect(await count(db, 'sends')).toBe(31);
    expect(await count(db, "deliveries WHERE status = 'sent'")).toBe(31);
    expect(await count(db, "deliveries WHERE status = 'queued'")).toBe(31);
    expect(await count(db, 'hosted_messages')).toBe(31);
    // The triggers ran in the worker's transaction too: the hosted messages' search index and
    // the counters (sends are indexed later, by the search indexer).
    expect(await count(db, "hosted_messages_fts WHERE hosted_messages_fts MATCH 's29'")).toBe(1);
    expect(await count(db, "sends_fts WHERE sends_fts MATCH 's29'")).toBe(0);
    const [counter] = await db.read.all<{ n: number }>(
      "SELECT n FROM history_counters WHERE name = 'hosted_messages'",
    );
    expect(counter.n).toBe(31);
    // Stored deliveries are born sent with their one attempt; the day roll-ups count each
    // delivery once, in its final state, and never saw it `sending`.
    const attempts = await db.read.all<{ attempt: number; outcome: string; reply: string }>(
      'SELECT attempt, outcome, reply FROM delivery_attempts ORDER BY id',
    );
    expect(attempts).toHaveLength(31);
    for (const a of attempts) {
      expect([a.attempt, a.outcome]).toEqual([1, 'sent']);
      expect(a.reply).toMatch(/^stored as hosted message \d+$/);
    }
    expect(
      await count(
        db,
        "deliveries WHERE status = 'sent' AND (attempts <> 1 OR sent_at IS NULL OR reply IS NULL)",
      ),
    ).toBe(0);
    const rollup = await db.read.all<{ status: string; n: number }>(
      'SELECT status, sum(n) AS n FROM delivery_day_rollup GROUP BY status HAVING sum(n) <> 0 ORDER BY status',
    );
    expect(rollup).toEqual([
      { status: 'queued', n: 31 },
      { status: 'sent', n: 31 },
    ]);
    // Each send has a queued webhook delivery besides its hosted one: still pending.
    expect(await count(db, "sends WHERE status = 'pending'")).toBe(31);
  });

  it('records attempts there too, and the state table still refuses an outcome out of turn', async () => {
    const { db, state } = await open({ HERALD_WRITE_WORKER: 'always' });
    const slot = db.writeWorker!;
    expect(slot.running).toBe(true);
    const accepted = await state.accept(input('attempts', false));
    const claimed = await state.claim(10);
    expect(claimed.map((c) => c.id).sort()).toEqual([...accepted.deliveryIds].sort());
    const before = slot.cycles;
    const outcome = (id: number) => ({
      id,
      lease: claimed.find((c) => c.id === id)!.lease,
      status: 'sent' as const,
      outcome: 'sent' as const,
      error: null,
      reply: 'ok',
      startedAt: clock.now(),
      durationMs: 1,
      retryAt: null,
    });
    const [a, b] = await Promise.all(accepted.deliveryIds.map((id) => state.record(outcome(id))));
    expect(slot.cycles).toBeGreaterThan(before);
    expect([a.recorded, b.recorded]).toEqual([true, true]);
    // Already sent: not `sending` any more, so the table refuses it, in the worker as here.
    const again = await state.record(outcome(accepted.deliveryIds[0]));
    expect(again.recorded).toBe(false);
    expect(await count(db, "sends WHERE status = 'sent'")).toBe(1);
    expect(await count(db, 'delivery_attempts')).toBe(2);
  });

  it('refuses only the bad send of a cycle, with its SQLite code, and commits the rest', async () => {
    const { db, state } = await open({ HERALD_WRITE_WORKER: 'always' });
    const before = db.writeWorker!.cycles;
    const results = await Promise.allSettled([
      state.accept(input('good 1')),
      state.accept(input(null)),
      state.accept(input('good 2')),
    ]);
    expect(db.writeWorker!.cycles).toBeGreaterThan(before);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const err = (results[1] as PromiseRejectedResult).reason as Error & { code?: string };
    expect(err.code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect(err.message).toMatch(
      /^SQLITE_CONSTRAINT_NOTNULL: NOT NULL constraint failed: sends\.title/,
    );
    expect(await count(db, 'sends')).toBe(2);
    expect(await count(db, 'deliveries')).toBe(4);
    expect(await count(db, 'hosted_messages')).toBe(2);
  });

  it('after the worker dies, writes go on here and nothing is lost', async () => {
    const { db, state } = await open({ HERALD_WRITE_WORKER: 'always' });
    const slot = db.writeWorker!;
    await (slot as unknown as { current: RemoteCycles }).current.stopNow();
    await vi.waitFor(() => expect(slot.running).toBe(false));
    const cycles = slot.cycles;
    const accepted = await Promise.all([state.accept(input('a')), state.accept(input('b'))]);
    expect(accepted).toHaveLength(2);
    // Given up: no new worker was started, the cycles ran on the main thread.
    await slot.settled();
    expect(slot.running).toBe(false);
    expect(slot.cycles).toBe(cycles);
    expect(await count(db, 'sends')).toBe(2);
  });

  it('stops when idle and starts again with the next burst', async () => {
    // Off, and a slot of its own with a short idle time in its place.
    const { db, state } = await open({ HERALD_WRITE_WORKER: 'off' });
    const slot = new WriteWorkerSlot(() => RemoteCycles.start(join(dir, 'herald.db'), 1000), 50);
    db.writer.useWorkers(slot);
    await slot.startNow();
    expect(slot.running).toBe(true);
    await state.accept(input('one'));
    await vi.waitFor(() => expect(slot.running).toBe(false), { timeout: 2000 });
    // The next cycle runs here and starts a new worker; the one after uses it.
    await state.accept(input('two'));
    await slot.settled();
    expect(slot.running).toBe(true);
    const cycles = slot.cycles;
    await state.accept(input('three'));
    expect(slot.cycles).toBe(cycles + 1);
    expect(await count(db, 'sends')).toBe(3);
    await slot.close();
  });

  it('refuses the cycles of a worker that dies as the database being unavailable', async () => {
    // A real thread that takes cycles and never answers, then ends: ending the real worker
    // inside a statement would abort the process (better-sqlite3), so it stands in here.
    const silent = new Worker("require('node:worker_threads').parentPort.on('message', () => {})", {
      eval: true,
    });
    const remote = new RemoteCycles(silent);
    const now = Date.now();
    const cycle = remote.run([
      { program: 'accept', moment: { now, wallNow: now, leaseUntil: now }, items: [input()] },
    ]);
    expect(remote.busy).toBe(true);
    await remote.stopNow();
    const err = await cycle.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^the write worker stopped/);
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(remote.usable).toBe(false);
    await expect(remote.run([])).rejects.toThrow('the write worker is not running');
  });

  it('HERALD_WRITE_WORKER: off writes here, a bad value is refused at open', async () => {
    const { db, state } = await open({ HERALD_WRITE_WORKER: 'off' });
    expect(db.writeWorker).toBeNull();
    await state.accept(input());
    expect(await count(db, 'sends')).toBe(1);
    await db.close();
    vi.stubEnv('HERALD_WRITE_WORKER', 'yes');
    await expect(openDatabase(join(dir, 'other.db'))).rejects.toThrow(
      'HERALD_WRITE_WORKER must be auto, on, always or off, not "yes"',
    );
    // Reopened for afterEach to close.
    vi.stubEnv('HERALD_WRITE_WORKER', 'off');
    await open();
  });

  it('a clean close leaves one file: the worker closes before the last connection', async () => {
    const { db, state } = await open({ HERALD_WRITE_WORKER: 'always' });
    await Promise.all([state.accept(input('x')), state.accept(input('y'))]);
    await db.close();
    expect(existsSync(join(dir, 'herald.db-wal'))).toBe(false);
    const check = new BetterSqlite3(join(dir, 'herald.db'), { readonly: true });
    expect((check.prepare('SELECT count(*) AS n FROM sends').get() as { n: number }).n).toBe(2);
    check.close();
    await open();
  });
});

describe('errors crossing from the worker', () => {
  it('keep the envelope code of an AppError and the code of a driver error', () => {
    const app = fromWire(toWire(new AppError(409, 'delivery 3 was already sent', { id: 3 })));
    expect(app).toBeInstanceOf(AppError);
    expect((app as AppError).code).toBe(409);
    expect((app as AppError).data).toEqual({ id: 3 });
    expect(app.message).toBe('delivery 3 was already sent');

    const busy = Object.assign(new Error('SQLITE_BUSY: database is locked'), {
      code: 'SQLITE_BUSY',
    });
    const back = fromWire(toWire(busy));
    expect((back as Error & { code?: string }).code).toBe('SQLITE_BUSY');
    expect(isDatabaseUnavailable(back)).toBe(true);
    expect(fromWire(toWire('a string')).message).toBe('a string');
  });
});

describe('HERALD_WRITE_WORKER', () => {
  it('auto runs the worker only where a core is free for it', () => {
    expect(effectiveWriteWorkerMode('auto', 2)).toBe('off');
    expect(effectiveWriteWorkerMode('auto', AUTO_MIN_CPUS - 1)).toBe('off');
    expect(effectiveWriteWorkerMode('auto', AUTO_MIN_CPUS)).toBe('on');
    expect(effectiveWriteWorkerMode('auto', 16)).toBe('on');
    for (const mode of ['on', 'always', 'off'] as const) {
      expect(effectiveWriteWorkerMode(mode, 1)).toBe(mode);
      expect(effectiveWriteWorkerMode(mode, 64)).toBe(mode);
    }
  });

  it('auto, on this machine, opens the database with or without the worker by its CPUs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-worker-auto-'));
    try {
      const db = await openDatabase(join(dir, 'herald.db'), { writeWorker: 'auto' });
      expect(db.writeWorker === null).toBe(availableParallelism() < AUTO_MIN_CPUS);
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is read with the rest of the configuration, and a bad value stops the start', () => {
    expect(readHeraldConfig({ dataDir: '/tmp/x' }, {}).writeWorker).toBe('auto');
    for (const mode of ['auto', 'on', 'always', 'off'] as const) {
      expect(
        readHeraldConfig({ dataDir: '/tmp/x' }, { HERALD_WRITE_WORKER: mode }).writeWorker,
      ).toBe(mode);
    }
    expect(() => readHeraldConfig({ dataDir: '/tmp/x' }, { HERALD_WRITE_WORKER: '1' })).toThrow(
      'HERALD_WRITE_WORKER must be auto, on, always or off, not "1"',
    );
  });
});
