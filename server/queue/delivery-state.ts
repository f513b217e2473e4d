import { randomBytes } from 'node:crypto';

import {
  defer,
  insertSends,
  requeue,
  rollUpSends,
  type ClaimedDelivery,
  type NewSend,
  type OutcomeRecord,
} from './store/hot-path';
import { countsBySend, deliveryRows, nextDueAt } from './store/hot-path-reads';
import { recoverClaims, recoverLeases } from './store/hot-path-recovery';
import { countSuppressed, setFirstSend, takeGate, type DedupGate } from './store/dedup-windows';
import { hostedMessageEvent, hostedMessageOf } from '../db/hosted-messages';
import type { SqlExecutor } from '../db/sql';
import type { BatchKind, Writer } from '../db/writer';
import { announceHostedMessage } from '../channels/hosted-store';
import type { HeraldEvents } from '../events';
import type { Clock } from '../lib/clock';
import { crashPoint } from '../lib/crash-point';
import { AppError, notFound } from '../lib/errors';
import { testDurationFromEnv } from '../lib/test-duration';
import {
  acceptSends,
  claimDeliveries,
  recordAttempts,
  type ClaimRequest,
  type AcceptedInCycle,
  type AcceptInput,
  type Accepted,
  type CycleMoment,
  type RecordedInCycle,
} from './delivery-programs';
import { TRANSITIONS, type DeliveryStatus } from './delivery-transitions';

export {
  statusFromCounts,
  nextStatus,
  TRANSITIONS,
  type DeliveryEvent,
} from './delivery-transitions';
export type { ClaimedDelivery, OutcomeRecord };
export type { AcceptInput, Accepted, StoredOnAccept } from './delivery-programs';

/**
 * A claim older than this belongs to a worker that died; the delivery is claimed again.
 * TEST ONLY: HERALD_TEST_LEASE_MS shortens it, so the multi-process test sees a killed
 * process's claims taken over without waiting five minutes.
 */
export const LEASE_MS = testDurationFromEnv('HERALD_TEST_LEASE_MS', 1_000) ?? 5 * 60_000;

/** How often claims look for run-out leases: a tenth of a lease, at most 30 s. */
export const EXPIRED_LOOK_MS = Math.min(LEASE_MS / 10, 30_000);

/**
 * Told of what DeliveryState committed, after the commit: metrics count here. Called at most
 * once per accepted send and per recorded attempt; it must not throw or wait.
 */
export interface DeliveryObserver {
  accepted(send: NewSend, deliveries: number): void;
  /** `channelType` is null when the attempt found no channel (deleted, or it failed to load). */
  recorded(outcome: Omit<OutcomeRecord, 'lease'>, channelType: string | null): void;
}

export type Recorded = Omit<RecordedInCycle, 'sendStatus'>;
export type { DedupGate } from './store/dedup-windows';

/** What acceptOnce came to: stored for delivery, or suppressed by an open dedup window. */
export type AcceptedOnce =
  ({ suppressed: false } & Accepted) | { suppressed: true; sendId: number; firstSendId: number };

type OnceInCycle =
  | { suppressed: false; input: AcceptInput; accepted: AcceptedInCycle }
  | { suppressed: true; sendId: number; firstSendId: number };

/**
 * The one owner of delivery state (the table is in delivery-transitions.ts). Sends are
 * accepted, deliveries claimed, attempts recorded, deliveries put back or queued again, and
 * sends rolled up only here, each as a write job of the Writer, and the matching events are
 * emitted here once the write is committed.
 */
export class DeliveryState {
  private readonly acceptKind: BatchKind<AcceptInput, AcceptedInCycle>;
  private readonly outcomeKind: BatchKind<OutcomeRecord, RecordedInCycle>;
  private readonly claimKind: BatchKind<ClaimRequest, ClaimedDelivery[]>;
  private readonly moment: () => CycleMoment;
  /** When a claim last looked for run-out leases (the delivery clock); never, at first. */
  private lastExpiredLook = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly deps: {
      writer: Writer;
      read: SqlExecutor;
      events: HeraldEvents;
      clock: Clock;
      observer?: DeliveryObserver;
      /** The tag of this DeliveryState's lease tokens (leaseTag()); unset, a new one. */
      leaseTag?: string;
    },
  ) {
    // The moment is taken on this thread for either writer: the delivery clock is this
    // process's (tests move it), and the write worker has none. Lease tokens: this
    // DeliveryState's random tag and a count of its cycles, so no two claims share one.
    const tag = deps.leaseTag ?? leaseTag();
    let cycles = 0;
    const moment = (this.moment = (): CycleMoment => {
      const now = this.deps.clock.now();
      cycles += 1;
      return {
        now,
        wallNow: Date.now(),
        leaseUntil: now + LEASE_MS,
        lease: `${tag}.${cycles.toString(36)}`,
      };
    });
    this.acceptKind = {
      name: 'accept',
      run: ({ sql }, items) => acceptSends(sql, items, moment()),
      remote: { program: 'accept', moment },
    };
    this.outcomeKind = {
      name: 'outcome',
      run: ({ sql }, outcomes) => recordAttempts(sql, outcomes, moment()),
      remote: { program: 'outcome', moment },
    };
    // Statements only, and repeatable like every merged kind: it shares the accept path's
    // cycles (writer.ts).
    this.claimKind = {
      name: 'claim',
      run: ({ sql }, requests) => claimDeliveries(sql, requests, moment()),
      remote: { program: 'claim', moment },
    };
  }

  /**
   * A send and its deliveries, `queued`, committed before this resolves: concurrent sends
   * share one cycle and one multi-row INSERT each for sends and deliveries.
   */
  async accept(input: AcceptInput): Promise<Accepted> {
    return this.announce(input, await this.deps.writer.submit(this.acceptKind, input));
  }

  /**
   * A send that carries a dedup key: the gate is taken and the send stored in one transaction
   * of its own, so two processes posting the same key at once cannot both deliver. `build`
   * makes the send once the gate says how many sends were suppressed since the last delivered
   * one (its `repeats`). Inside an open window the send is stored `suppressed`, without
   * deliveries, and counted on the window's first send.
   */
  async acceptOnce(
    gate: DedupGate,
    build: (repeats: number) => AcceptInput,
  ): Promise<AcceptedOnce> {
    const result = await this.deps.writer.run(
      async ({ sql }): Promise<OnceInCycle> => {
        // Taken when the job runs, as the batched kinds take theirs when their cycle starts.
        const at = this.moment();
        const taken = await takeGate(sql, gate, at.now);
        if (!taken.opened) {
          const { send } = build(0);
          const [sendId] = await insertSends(
            sql,
            [{ ...send, status: 'suppressed', deliveryCount: 0, suppressedBy: taken.firstSendId }],
            at.wallNow,
          );
          await countSuppressed(sql, taken.firstSendId);
          return { suppressed: true, sendId, firstSendId: taken.firstSendId };
        }
        const input = build(taken.repeats);
        const [accepted] = await acceptSends(sql, [input], at);
        await setFirstSend(sql, gate, accepted.sendId);
        return { suppressed: false, input, accepted };
      },
      { repeatable: true },
    );
    if (result.suppressed) {
      this.deps.events.emit('send', { id: result.sendId, status: 'suppressed' });
      return result;
    }
    return { suppressed: false, ...this.announce(result.input, result.accepted) };
  }

  /** After an accept's commit: the metrics and the events of what it stored. */
  private announce(
    input: AcceptInput,
    { sendStatus, outcomes, createdAt, firstInCycle, ...accepted }: AcceptedInCycle,
  ): Accepted {
    // Once a cycle, as the other accept points are: dying at the nth cycle's first send leaves
    // the earlier cycles answered (counted per send, a cycle of n or more sends died before
    // any answer went out, and the crash test found none answered).
    if (firstInCycle) crashPoint('after-commit');
    this.deps.observer?.accepted(input.send, accepted.deliveryIds.length);
    this.deps.events.emit('send', { id: accepted.sendId, status: 'pending' });
    accepted.stored.forEach((stored, i) => {
      const delivery = input.deliveries[accepted.deliveryIds.indexOf(stored.deliveryId)];
      this.deps.observer?.recorded(outcomes[i], delivery.channelType);
      this.deps.events.emit('delivery', {
        id: stored.deliveryId,
        sendId: accepted.sendId,
        status: 'sent',
      });
      announceHostedMessage(
        this.deps.events,
        hostedMessageEvent(
          hostedMessageOf(delivery, stored.deliveryId),
          stored.hostedMessageId,
          delivery.priority,
          createdAt,
        ),
      );
    });
    if (sendStatus !== 'pending') {
      this.deps.events.emit('send', { id: accepted.sendId, status: sendStatus });
    }
    return accepted;
  }

  /**
   * claim: up to `limit` due deliveries become `sending` under a lease. Run-out leases are
   * looked for once per EXPIRED_LOOK_MS of the delivery clock, not by every claim: that part
   * of the statement reads every delivery in flight, and under load there are hundreds of
   * claims a second while a lease lasts minutes.
   */
  claim(limit: number, exclude: number[] = []): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return Promise.resolve([]);
    const now = this.deps.clock.now();
    const expired = !(now >= this.lastExpiredLook && now - this.lastExpiredLook < EXPIRED_LOOK_MS);
    if (expired) this.lastExpiredLook = now;
    return this.deps.writer.submit(this.claimKind, { limit, exclude, expired });
  }

  /**
   * succeed / retry / fail: records one attempt and the delivery's new status, and rolls its
   * send up. Outcomes that finish together are written together. An outcome whose claim no
   * longer holds the delivery changes nothing (`recorded: false`, and `leaseLost` when
   * another claim took it over).
   */
  async record(outcome: OutcomeRecord, channelType: string | null = null): Promise<Recorded> {
    const { sendStatus, ...result } = await this.deps.writer.submit(this.outcomeKind, outcome);
    if (result.recorded) {
      this.deps.observer?.recorded(outcome, channelType);
      this.deps.events.emit('delivery', {
        id: result.id,
        sendId: result.sendId,
        status: result.status,
      });
    }
    if (sendStatus) this.deps.events.emit('send', { id: result.sendId, status: sendStatus });
    return result;
  }

  /**
   * defer: back to waiting until `at`, not counted as an attempt; refused (false) unless the
   * delivery is still `sending` under `claim`'s lease. A `reason` (DeliveryError.deferred)
   * becomes the delivery's lastError while it waits; without one, lastError is kept.
   */
  defer(
    claim: Pick<ClaimedDelivery, 'id' | 'lease'>,
    at: number,
    reason?: string,
  ): Promise<boolean> {
    return this.deps.writer.run(({ sql }) => defer(sql, claim, at, Date.now(), reason), {
      repeatable: true,
    });
  }

  /** requeue: a failed or waiting delivery is queued again now, with a fresh attempt budget. */
  async requeue(id: number): Promise<void> {
    const { sendId, sendStatus } = await this.deps.writer.run(async ({ sql }) => {
      const wallNow = Date.now();
      const moved = await requeue(sql, id, this.deps.clock.now(), wallNow);
      if (!moved) {
        const [row] = await deliveryRows(sql, [id]);
        if (!row) throw notFound(`delivery ${id} does not exist`);
        throw refused(id, row.status);
      }
      const [changed] = await rollUpSends(sql, [moved.sendId], wallNow);
      return { sendId: moved.sendId, sendStatus: changed?.status ?? null };
    });
    this.deps.events.emit('delivery', { id, sendId, status: 'queued' });
    if (sendStatus) this.deps.events.emit('send', { id: sendId, status: sendStatus });
  }

  /**
   * recover, for one DeliveryState's claims: those of the DeliveryState whose lease tag is
   * `tag` (the delivery thread's, after the thread died) go back to waiting now.
   */
  recoverTagged(tag: string): Promise<number> {
    return this.deps.writer.run(({ sql }) => recoverLeases(sql, tag, Date.now()), {
      repeatable: true,
    });
  }

  /** recover: at startup, claims a dead process left behind go back to waiting. */
  recover(): Promise<number> {
    return this.deps.writer.run(({ sql }) => recoverClaims(sql, Date.now()), {
      repeatable: true,
    });
  }

  // ---- reads (read connection: committed state only) ----------------------------------

  current(ids: number[]) {
    return deliveryRows(this.deps.read, ids);
  }

  countsBySend(sendIds: number[]) {
    return countsBySend(this.deps.read, sendIds);
  }

  nextDueAt() {
    return nextDueAt(this.deps.read);
  }
}

/** A new tag for a DeliveryState's lease tokens: random, and never holding a `.`. */
export function leaseTag(): string {
  return randomBytes(6).toString('base64url');
}

function refused(id: number, status: DeliveryStatus): AppError {
  if (status === 'sent') return new AppError(409, `delivery ${id} was already sent`);
  if (status === 'sending') return new AppError(409, `delivery ${id} is being sent right now`);
  return new AppError(
    409,
    `delivery ${id} is ${status}; only ${TRANSITIONS.requeue.from.join(', ')} deliveries can be queued again`,
  );
}
