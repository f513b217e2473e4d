import {
  claimByIds,
  claimDue,
  countsBySend,
  defer,
  deliveryRows,
  insertDeliveries,
  insertHostedMessages,
  insertSends,
  nextDueAt,
  recordOutcomes,
  recoverClaims,
  requeue,
  rollUpSends,
  type ClaimedDelivery,
  type NewDelivery,
  type NewHostedMessage,
  type NewSend,
  type OutcomeRecord,
} from '../db/dialect-hot-path';
import type { SqlExecutor } from '../db/sql';
import type { BatchKind, Writer } from '../db/writer';
import { announceHostedMessage } from '../channels/hosted-store';
import type { HeraldEvents } from '../events';
import type { Clock } from '../lib/clock';
import { crashPoint } from '../lib/crash-point';
import { AppError, notFound } from '../lib/errors';
import { TRANSITIONS, type DeliveryStatus, type SendStatus } from './delivery-transitions';

export {
  statusFromCounts,
  nextStatus,
  TRANSITIONS,
  type DeliveryEvent,
} from './delivery-transitions';
export type { ClaimedDelivery, OutcomeRecord };

/**
 * A claim older than this belongs to a worker that died; the delivery is claimed again.
 * TEST ONLY: HERALD_TEST_LEASE_MS shortens it, so the multi-process test sees a killed
 * process's claims taken over without waiting five minutes.
 */
export const LEASE_MS = leaseFromEnv(process.env.HERALD_TEST_LEASE_MS) ?? 5 * 60_000;

function leaseFromEnv(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1_000) {
    throw new Error(
      `HERALD_TEST_LEASE_MS must be a whole number of ms, at least 1000, not "${value}"`,
    );
  }
  return ms;
}

export interface AcceptInput {
  send: NewSend;
  /**
   * The send's deliveries, without sendId (it is not known before the insert). A delivery
   * marked `storeOnAccept` is a hosted message: it is stored in the accept's own transaction
   * (claimed and sent there), so it is in the reader the moment the send is answered, and never
   * waits behind other channels' backlog in the queue.
   */
  deliveries: Array<Omit<NewDelivery, 'sendId' | 'nextAttemptAt'> & { storeOnAccept?: boolean }>;
}

/** A hosted delivery stored by the accept: its attempt, already recorded as sent. */
export interface StoredOnAccept {
  deliveryId: number;
  hostedMessageId: number;
  reply: string;
}

export interface Accepted {
  sendId: number;
  /** In the order the deliveries were given. */
  deliveryIds: number[];
  /** The deliveries stored with the accept (see AcceptInput). */
  stored: StoredOnAccept[];
}

/** What the accept cycle returns per send, before the events that follow its commit. */
interface AcceptedInCycle extends Accepted {
  sendStatus: SendStatus;
  outcomes: OutcomeRecord[];
  createdAt: string;
}

/**
 * Told of what DeliveryState committed, after the commit: metrics count here. Called at most
 * once per accepted send and per recorded attempt; it must not throw or wait.
 */
export interface DeliveryObserver {
  accepted(send: NewSend, deliveries: number): void;
  /** `channelType` is null when the attempt found no channel (deleted, or it failed to load). */
  recorded(outcome: OutcomeRecord, channelType: string | null): void;
}

export interface Recorded {
  id: number;
  sendId: number;
  /** False when the delivery was no longer `sending`: the table refused the outcome. */
  recorded: boolean;
  status: DeliveryStatus;
}

/**
 * The one owner of delivery state (the table is in delivery-transitions.ts). Sends are
 * accepted, deliveries claimed, attempts recorded, deliveries put back or queued again, and
 * sends rolled up only here, each as a write job of the Writer, and the matching events are
 * emitted here once the write is committed.
 */
export class DeliveryState {
  private readonly acceptKind: BatchKind<AcceptInput, AcceptedInCycle>;
  private readonly outcomeKind: BatchKind<
    OutcomeRecord,
    Recorded & { sendStatus: SendStatus | null }
  >;

  constructor(
    private readonly deps: {
      writer: Writer;
      read: SqlExecutor;
      events: HeraldEvents;
      clock: Clock;
      observer?: DeliveryObserver;
    },
  ) {
    this.acceptKind = {
      name: 'accept',
      run: async ({ sql }, items) => {
        const wallNow = Date.now();
        const nextAttemptAt = this.deps.clock.now();
        const sendIds = await insertSends(
          sql,
          items.map((i) => i.send),
          wallNow,
        );
        crashPoint('during-cycle');
        const deliveryIds = await insertDeliveries(
          sql,
          items.flatMap((item, i) =>
            item.deliveries.map(({ storeOnAccept: _, ...d }) => ({
              ...d,
              sendId: sendIds[i],
              nextAttemptAt,
            })),
          ),
          wallNow,
        );
        let next = 0;
        const accepted: AcceptedInCycle[] = items.map((item, i) => ({
          sendId: sendIds[i],
          deliveryIds: item.deliveries.map(() => deliveryIds[next++]),
          stored: [],
          sendStatus: 'pending',
          outcomes: [],
          createdAt: new Date(wallNow).toISOString(),
        }));
        await this.storeOnAccept(sql, items, accepted, nextAttemptAt, wallNow);
        crashPoint('before-commit');
        return accepted;
      },
    };
    this.outcomeKind = {
      name: 'outcome',
      run: async ({ sql }, outcomes) => {
        const wallNow = Date.now();
        const recorded = await recordOutcomes(sql, [...outcomes], wallNow);
        const moved = new Map(recorded.moved.map((m) => [m.id, m]));
        const changed = new Map(recorded.sends.map((s) => [s.id, s.status]));
        // Each changed send is reported once, with the first of its outcomes.
        return outcomes.map((o) => {
          const m = moved.get(o.id);
          const sendStatus = m ? (changed.get(m.sendId) ?? null) : null;
          if (m) changed.delete(m.sendId);
          return {
            id: o.id,
            sendId: m?.sendId ?? 0,
            recorded: m !== undefined,
            status: o.status,
            sendStatus,
          };
        });
      },
    };
  }

  /**
   * A send and its deliveries, `queued`, committed before this resolves: concurrent sends
   * share one cycle and one multi-row INSERT each for sends and deliveries.
   */
  async accept(input: AcceptInput): Promise<Accepted> {
    const { sendStatus, outcomes, createdAt, ...accepted } = await this.deps.writer.submit(
      this.acceptKind,
      input,
    );
    crashPoint('after-commit');
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
      announceHostedMessage(this.deps.events, {
        id: stored.hostedMessageId,
        title: delivery.title,
        content: delivery.content,
        format: delivery.contentType,
        url: delivery.url,
        createdAt,
      });
    });
    if (sendStatus !== 'pending') {
      this.deps.events.emit('send', { id: accepted.sendId, status: sendStatus });
    }
    return accepted;
  }

  /**
   * The accept cycle's hosted deliveries go through the same transitions as the dispatcher's
   * (claim, then succeed: delivery-transitions.ts), in the accept's transaction: a crash before
   * its commit leaves neither the send nor the message.
   */
  private async storeOnAccept(
    sql: SqlExecutor,
    items: readonly AcceptInput[],
    accepted: AcceptedInCycle[],
    now: number,
    wallNow: number,
  ): Promise<void> {
    const hosted: Array<{ item: number; deliveryId: number; message: NewHostedMessage }> = [];
    items.forEach((item, i) =>
      item.deliveries.forEach((d, j) => {
        if (!d.storeOnAccept) return;
        const deliveryId = accepted[i].deliveryIds[j];
        hosted.push({
          item: i,
          deliveryId,
          message: {
            channelId: d.channelId,
            deliveryId,
            title: d.title,
            content: d.content,
            format: d.contentType,
            url: d.url,
          },
        });
      }),
    );
    if (hosted.length === 0) return;
    await claimByIds(
      sql,
      hosted.map((h) => h.deliveryId),
      now + LEASE_MS,
      wallNow,
    );
    const messages = await insertHostedMessages(
      sql,
      hosted.map((h) => h.message),
      wallNow,
    );
    const outcomes: OutcomeRecord[] = hosted.map((h, k) => ({
      id: h.deliveryId,
      status: 'sent',
      outcome: 'sent',
      error: null,
      reply: `stored as hosted message ${messages[k].id}`,
      startedAt: now,
      durationMs: 0,
      retryAt: null,
    }));
    const recorded = await recordOutcomes(sql, outcomes, wallNow);
    const sendStatus = new Map(recorded.sends.map((r) => [r.id, r.status]));
    hosted.forEach((h, k) => {
      const a = accepted[h.item];
      a.stored.push({
        deliveryId: h.deliveryId,
        hostedMessageId: messages[k].id,
        reply: outcomes[k].reply!,
      });
      a.outcomes.push(outcomes[k]);
      a.sendStatus = sendStatus.get(a.sendId) ?? a.sendStatus;
    });
  }

  /** claim: up to `limit` due deliveries become `sending` under a lease. */
  claim(limit: number, exclude: number[] = []): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return Promise.resolve([]);
    const now = this.deps.clock.now();
    // Statements only: it shares the accept path's cycles (JobOptions in writer.ts).
    return this.deps.writer.run(
      ({ sql }) =>
        claimDue(sql, { now, leaseUntil: now + LEASE_MS, limit, exclude, wallNow: Date.now() }),
      { repeatable: true },
    );
  }

  /**
   * succeed / retry / fail: records one attempt and the delivery's new status, and rolls its
   * send up. Outcomes that finish together are written together.
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

  /** defer: back to waiting until `at`, not counted as an attempt. */
  defer(id: number, at: number): Promise<boolean> {
    return this.deps.writer.run(({ sql }) => defer(sql, id, at, Date.now()), { repeatable: true });
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

function refused(id: number, status: DeliveryStatus): AppError {
  if (status === 'sent') return new AppError(409, `delivery ${id} was already sent`);
  if (status === 'sending') return new AppError(409, `delivery ${id} is being sent right now`);
  return new AppError(
    409,
    `delivery ${id} is ${status}; only ${TRANSITIONS.requeue.from.join(', ')} deliveries can be queued again`,
  );
}
