import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { openDatabase, type Database } from '../../../../server/db/database';
import { rollUpSends } from '../../../../server/queue/store/hot-path';
import { migrate } from '../../../../server/db/migrate';
import { initModels } from '../../../../server/db/models';
import { HeraldEvents } from '../../../../server/events';
import { DeliveryState, EXPIRED_LOOK_MS, LEASE_MS } from '../../../../server/queue/delivery-state';
import {
  DELIVERY_STATUSES,
  nextStatus,
  statusFromCounts,
  type DeliveryEvent,
  type DeliveryStatus,
} from '../../../../server/queue/delivery-transitions';
import { ManualClock } from '../../../helpers/manual-clock';

/* The state table, written out by hand: where each event takes each state (null: refused). */
const waiting = (attempts: number): DeliveryStatus => (attempts > 0 ? 'retrying' : 'queued');
const EXPECTED: Record<
  DeliveryEvent,
  (from: DeliveryStatus, attempts: number) => DeliveryStatus | null
> = {
  // Facts here: the delivery is due and, if `sending`, its lease ran out (see the test below).
  claim: (from) =>
    from === 'sent' || from === 'failed' || from === 'suppressed' ? null : 'sending',
  succeed: (from) => (from === 'sending' ? 'sent' : null),
  retry: (from) => (from === 'sending' ? 'retrying' : null),
  fail: (from) => (from === 'sending' ? 'failed' : null),
  suppress: (from) => (from === 'sending' ? 'suppressed' : null),
  defer: (from, attempts) => (from === 'sending' ? waiting(attempts) : null),
  requeue: (from) =>
    from === 'sent' || from === 'sending' || from === 'suppressed' ? null : 'queued',
  recover: (from, attempts) => (from === 'sending' ? waiting(attempts) : null),
};
const EVENTS = Object.keys(EXPECTED) as DeliveryEvent[];

describe('DeliveryState', () => {
  let dir: string;
  let db: Database;
  let state: DeliveryState;
  const clock = new ManualClock();
  const events = new HeraldEvents();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-state-'));
    db = await openDatabase(join(dir, 'state.db'));
    initModels(db.sequelize);
    await migrate(db.sequelize);
    state = new DeliveryState({ writer: db.writer, read: db.read, events, clock });
  });
  // Tests share one database: each starts with nothing left due by an earlier one, which a
  // claim would otherwise pick up.
  beforeEach(async () => {
    await settleAll();
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const accept = (count = 1) =>
    state.accept({
      send: {
        api: 'v2',
        taskId: null,
        templateId: 1,
        sourceName: 'state test',
        title: 't',
        text: 'x',
        html: null,
        markdown: null,
        url: null,
        request: { title: 't' },
        deliveryCount: count,
      },
      deliveries: Array.from({ length: count }, () => ({
        instanceId: null,
        channelId: 1,
        channelType: 'webhook',
        contentType: 'text' as const,
        recipient: null,
        title: 't',
        content: 'x',
        url: null,
        mentions: { mobiles: [], userIds: [], all: false },
      })),
    });

  /** Marks every delivery sent, so none is due or leased. */
  const settleAll = () =>
    db.writer.run(({ sql }) =>
      sql.run(`UPDATE deliveries SET status = 'sent' WHERE status <> 'sent'`),
    );

  /** A delivery put straight into a state (test set-up, not a transition). */
  async function deliveryIn(
    status: DeliveryStatus,
    opts: { attempts?: number; due?: boolean; leaseExpired?: boolean } = {},
  ) {
    // Nothing else may be due when a claim is tested.
    await settleAll();
    const { deliveryIds } = await accept();
    const id = deliveryIds[0];
    const now = clock.now();
    await db.writer.run(({ sql }) =>
      sql.run(
        `UPDATE deliveries SET status = ?2, attempts = ?3, next_attempt_at = ?4, lease_until = ?5,
           lease_token = ?6
         WHERE id = ?1`,
        [
          id,
          status,
          opts.attempts ?? 0,
          opts.due === false ? now + 60_000 : now,
          status === 'sending' ? (opts.leaseExpired ? now - 1 : now + LEASE_MS) : null,
          status === 'sending' ? LEASE : null,
        ],
      ),
    );
    return id;
  }

  /** The lease token of the claim a delivery set up `sending` is under. */
  const LEASE = 'test.1';

  const statusOf = async (id: number) => (await state.current([id]))[0].status;

  const outcome = (
    id: number,
    status: 'sent' | 'retrying' | 'failed' | 'suppressed',
    lease = LEASE,
  ) => ({
    id,
    lease,
    status,
    outcome: status === 'sent' || status === 'suppressed' ? status : ('transient' as const),
    error: status === 'sent' ? null : 'boom',
    reply: null,
    startedAt: clock.now(),
    durationMs: 5,
    retryAt: status === 'retrying' ? clock.now() + 1000 : null,
  });

  /** Applies an event through DeliveryState; returns whether it was refused. */
  async function apply(event: DeliveryEvent, id: number): Promise<'done' | 'refused'> {
    switch (event) {
      case 'claim':
        // Past the interval at which claims look for run-out leases, so this one does.
        clock.advance(EXPIRED_LOOK_MS);
        return (await state.claim(10)).some((d) => d.id === id) ? 'done' : 'refused';
      case 'succeed':
        return (await state.record(outcome(id, 'sent'))).recorded ? 'done' : 'refused';
      case 'retry':
        return (await state.record(outcome(id, 'retrying'))).recorded ? 'done' : 'refused';
      case 'fail':
        return (await state.record(outcome(id, 'failed'))).recorded ? 'done' : 'refused';
      case 'suppress':
        return (await state.record(outcome(id, 'suppressed'))).recorded ? 'done' : 'refused';
      case 'defer':
        return (await state.defer({ id, lease: LEASE }, clock.now() + 500)) ? 'done' : 'refused';
      case 'requeue':
        return state.requeue(id).then(
          () => 'done',
          (err: { code?: number }) => {
            expect(err.code).toBe(409);
            return 'refused';
          },
        );
      case 'recover':
        return (await state.recover()) > 0 ? 'done' : 'refused';
    }
  }

  for (const event of EVENTS) {
    for (const from of DELIVERY_STATUSES) {
      for (const attempts of [0, 2]) {
        const expected = EXPECTED[event](from, attempts);
        it(`${event} from ${from} (${attempts} attempts) → ${expected ?? 'refused'}`, async () => {
          const table = nextStatus(event, from, { attempts, due: true, leaseExpired: true });
          expect(table).toBe(expected);
          const id = await deliveryIn(from, { attempts, leaseExpired: true });
          const result = await apply(event, id);
          expect(result).toBe(table === null ? 'refused' : 'done');
          expect(await statusOf(id)).toBe(table ?? from);
        });
      }
    }
  }

  it('claim refuses a delivery that is not due yet, and a claim whose lease still holds', async () => {
    expect(nextStatus('claim', 'queued', { attempts: 0, due: false })).toBeNull();
    const early = await deliveryIn('queued', { due: false });
    expect(await state.claim(10)).toEqual([]);
    expect(await statusOf(early)).toBe('queued');
    expect(nextStatus('claim', 'sending', { attempts: 0, leaseExpired: false })).toBeNull();
    const held = await deliveryIn('sending', { leaseExpired: false });
    expect(await state.claim(10)).toEqual([]);
    expect(await statusOf(held)).toBe('sending');
  });

  it('claims look for run-out leases once per interval, not every time', async () => {
    clock.advance(EXPIRED_LOOK_MS);
    // This claim looks (nothing has run out yet) ...
    expect(await state.claim(10)).toEqual([]);
    const stale = await deliveryIn('sending', { leaseExpired: true });
    // ... so the next ones within the interval leave the run-out lease alone ...
    clock.advance(EXPIRED_LOOK_MS - 1);
    expect(await state.claim(10)).toEqual([]);
    expect(await statusOf(stale)).toBe('sending');
    // ... while waiting deliveries are claimed as always.
    const {
      deliveryIds: [waiting],
    } = await accept();
    expect((await state.claim(10)).map((d) => d.id)).toEqual([waiting]);
    // Once the interval has passed, a claim takes the run-out lease over.
    clock.advance(1);
    const [taken] = await state.claim(10);
    expect(taken.id).toBe(stale);
    expect(taken.lease).not.toBe(LEASE);
  });

  it('an outcome records one attempt and rolls its send up; events follow the commit', async () => {
    const { sendId, deliveryIds } = await accept(2);
    const seen: string[] = [];
    const onDelivery = (e: { id: number; status: string }) => seen.push(`d${e.id}:${e.status}`);
    const onSend = (e: { id: number; status: string }) => seen.push(`s${e.id}:${e.status}`);
    events.on('delivery', onDelivery);
    events.on('send', onSend);
    try {
      const claimed = await state.claim(10);
      expect(claimed.map((d) => d.id)).toEqual(deliveryIds);
      await Promise.all([
        state.record(outcome(deliveryIds[0], 'sent', claimed[0].lease)),
        state.record(outcome(deliveryIds[1], 'failed', claimed[1].lease)),
      ]);
    } finally {
      events.off('delivery', onDelivery);
      events.off('send', onSend);
    }
    expect(seen.sort()).toEqual(
      [`d${deliveryIds[0]}:sent`, `d${deliveryIds[1]}:failed`, `s${sendId}:partial`].sort(),
    );
    const attempts = await db.read.all<{ delivery_id: number; attempt: number }>(
      `SELECT delivery_id, attempt FROM delivery_attempts WHERE delivery_id IN (?1, ?2)`,
      deliveryIds,
    );
    expect(attempts.map((a) => a.attempt)).toEqual([1, 1]);
    const [send] = await db.read.all<{ status: string }>(`SELECT status FROM sends WHERE id = ?1`, [
      sendId,
    ]);
    expect(send.status).toBe('partial');
  });

  it('an outcome or defer under a lease another claim took over changes nothing', async () => {
    const { sendId, deliveryIds } = await accept(1);
    const [id] = deliveryIds;
    const [first] = await state.claim(10);
    expect(first.id).toBe(id);
    // The first claim's attempt outlives its lease: the delivery is claimed again.
    clock.advance(LEASE_MS + 1);
    const [second] = await state.claim(10);
    expect(second.id).toBe(id);
    expect(second.lease).not.toBe(first.lease);
    // The first attempt's late outcome and defer are refused, and say why.
    expect(await state.record(outcome(id, 'failed', first.lease))).toMatchObject({
      recorded: false,
      leaseLost: true,
    });
    expect(await state.defer(first, clock.now() + 500)).toBe(false);
    expect((await state.current([id]))[0]).toMatchObject({
      status: 'sending',
      attempts: 0,
      lease: second.lease,
    });
    // The second claim's outcome is the one recorded.
    expect(await state.record(outcome(id, 'sent', second.lease))).toMatchObject({
      recorded: true,
      leaseLost: false,
    });
    expect((await state.current([id]))[0]).toMatchObject({
      status: 'sent',
      attempts: 1,
      lease: null,
    });
    const attempts = await db.read.all<{ outcome: string }>(
      `SELECT outcome FROM delivery_attempts WHERE delivery_id = ?1`,
      [id],
    );
    expect(attempts.map((a) => a.outcome)).toEqual(['sent']);
    const [send] = await db.read.all<{ status: string }>(`SELECT status FROM sends WHERE id = ?1`, [
      sendId,
    ]);
    expect(send.status).toBe('sent');
    // Once recorded, a repeat of the first claim's outcome is refused as out of turn.
    expect(await state.record(outcome(id, 'failed', first.lease))).toMatchObject({
      recorded: false,
      leaseLost: false,
    });
  });

  it("recoverTagged puts back only the claims under one DeliveryState's lease tag", async () => {
    // `_` is a LIKE wildcard: the tag is compared as text, so `a_b` does not take `aXb`'s.
    const thread = new DeliveryState({
      writer: db.writer,
      read: db.read,
      events,
      clock,
      leaseTag: 'a_b',
    });
    const other = new DeliveryState({
      writer: db.writer,
      read: db.read,
      events,
      clock,
      leaseTag: 'aXb',
    });
    await settleAll();
    await accept(2);
    const [mine] = await thread.claim(1);
    const [theirs] = await other.claim(1);
    expect(mine.lease).toMatch(/^a_b\./);
    expect(theirs.lease).toMatch(/^aXb\./);
    await db.writer.run(({ sql }) =>
      sql.run(`UPDATE deliveries SET attempts = 2 WHERE id = ?1`, [mine.id]),
    );

    expect(await thread.recoverTagged('a_b')).toBe(1);
    expect(await statusOf(mine.id)).toBe('retrying');
    expect(await statusOf(theirs.id)).toBe('sending');
    // Its lease is gone: the late outcome of the dead claim changes nothing.
    expect((await thread.record(outcome(mine.id, 'sent', mine.lease))).recorded).toBe(false);
    expect(await thread.recoverTagged('a_b')).toBe(0);
    expect(await thread.recoverTagged('a')).toBe(0);
  });

  it('requeue of a missing delivery answers 404', async () => {
    await expect(state.requeue(987654)).rejects.toMatchObject({ code: 404 });
  });

  it('the SQL roll-up agrees with statusFromCounts() for every mix of statuses', async () => {
    const mixes: DeliveryStatus[][] = [
      ['sent'],
      ['failed'],
      ['sent', 'failed'],
      ['sent', 'retrying'],
      ['queued', 'failed'],
      ['sending', 'sent'],
      ['sent', 'sent', 'failed'],
      ['retrying'],
      ['suppressed'],
      ['suppressed', 'sent'],
      ['suppressed', 'failed'],
      ['suppressed', 'queued'],
    ];
    for (const mix of mixes) {
      const { sendId, deliveryIds } = await accept(mix.length);
      await db.writer.run(async ({ sql }) => {
        for (const [i, status] of mix.entries()) {
          await sql.run(`UPDATE deliveries SET status = ?2 WHERE id = ?1`, [
            deliveryIds[i],
            status,
          ]);
        }
        await rollUpSends(sql, [sendId], Date.now());
      });
      const counts: Partial<Record<DeliveryStatus, number>> = {};
      for (const s of mix) counts[s] = (counts[s] ?? 0) + 1;
      const [row] = await db.read.all<{ status: string }>(
        `SELECT status FROM sends WHERE id = ?1`,
        [sendId],
      );
      expect({ mix, status: row.status }).toEqual({ mix, status: statusFromCounts(counts) });
    }
  });
});
