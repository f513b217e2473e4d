/**
 * What DeliveryState's three busiest write kinds do inside a cycle, as plain functions of the
 * cycle's executor, its items and the moment it runs. They hold no reference to the process
 * around them (clock, events, models), so the same code runs on the main thread's write
 * connection (PostgreSQL, or SQLite where the write worker is off) and inside the SQLite write
 * worker (server/queue/store/write-worker.ts), which receives the items and the moment as data.
 */
import {
  claimDue,
  insertDeliveries,
  insertSends,
  recordOutcomes,
  recordStoredAttempts,
  type ClaimedDelivery,
  type NewDelivery,
  type NewSend,
  type OutcomeRecord,
} from './store/hot-path';
import { deliveryRows } from './store/hot-path-reads';
import {
  hostedMessageOf,
  hostedMessageReply,
  insertHostedMessages,
  newHostedMessage,
  type NewHostedMessage,
} from '../db/hosted-messages';
import type { SqlExecutor } from '../db/sql';
import { crashPoint } from '../lib/crash-point';
import type { DeliveryStatus, SendStatus } from './delivery-transitions';

/** The moment a cycle runs: taken once on the main thread, whichever thread writes. */
export interface CycleMoment {
  /** The delivery clock (tests may move it): due times and leases. */
  now: number;
  /** Wall time, for the rows' created_at and updated_at. */
  wallNow: number;
  /** Until when a claim made now holds (now + the lease). */
  leaseUntil: number;
  /**
   * The lease token a claim made now writes: unique to this process and cycle, it is what an
   * outcome or defer of the claimed deliveries must still find on them to be recorded.
   */
  lease: string;
}

export interface AcceptInput {
  send: NewSend;
  /**
   * The send's deliveries, without sendId (it is not known before the insert). A delivery
   * marked `storeOnAccept` is a hosted message: it is stored in the accept's own transaction
   * (inserted `sent` there, see acceptSends), so it is in the reader the moment the send is answered, and never
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

/** The attempt of a delivery stored with the accept: no claim, so no lease. */
export type StoredOutcome = Omit<OutcomeRecord, 'lease'>;

/** What the accept cycle returns per send, before the events that follow its commit. */
export interface AcceptedInCycle extends Accepted {
  sendStatus: SendStatus;
  outcomes: StoredOutcome[];
  createdAt: string;
  /** The cycle's first send: the test crash point `after-commit` counts cycles by it. */
  firstInCycle: boolean;
}

export interface RecordedInCycle {
  id: number;
  sendId: number;
  /**
   * False when the delivery was no longer `sending` under the attempt's claim: the table, or
   * the lease, refused the outcome and nothing changed.
   */
  recorded: boolean;
  /**
   * Refused because the lease ran out and another claim took the delivery over (it is still
   * `sending`, under that claim's token); the other claim's outcome is the one recorded.
   */
  leaseLost: boolean;
  status: DeliveryStatus;
  /** The send's new status when this outcome (the first of its send in the cycle) moved it. */
  sendStatus: SendStatus | null;
}

/**
 * Sends and their deliveries: one multi-row INSERT each for the whole cycle. Deliveries are
 * `queued`, except the hosted ones marked `storeOnAccept`: their message is stored in this
 * transaction, so they are inserted `sent` with their one attempt, and a send whose deliveries
 * are all such is inserted `sent` (a crash before the commit leaves neither the send nor the
 * message). Inserting the final state saves the claim and outcome updates, and the roll-up
 * triggers each of them fired, that walking them through `sending` cost.
 */
export async function acceptSends(
  sql: SqlExecutor,
  items: readonly AcceptInput[],
  at: CycleMoment,
): Promise<AcceptedInCycle[]> {
  const statuses = items.map((item): 'pending' | 'sent' =>
    item.deliveries.length > 0 && item.deliveries.every((d) => d.storeOnAccept)
      ? 'sent'
      : 'pending',
  );
  const sendIds = await insertSends(
    sql,
    items.map((item, i) => ({ ...item.send, status: statuses[i] })),
    at.wallNow,
  );
  crashPoint('during-cycle');
  const deliveryIds = await insertDeliveries(
    sql,
    items.flatMap((item, i) =>
      item.deliveries.map(({ storeOnAccept, ...d }) => ({
        ...d,
        sendId: sendIds[i],
        nextAttemptAt: at.now,
        sentAt: storeOnAccept ? at.now : null,
      })),
    ),
    at.wallNow,
  );
  let next = 0;
  const accepted: AcceptedInCycle[] = items.map((item, i) => ({
    sendId: sendIds[i],
    deliveryIds: item.deliveries.map(() => deliveryIds[next++]),
    stored: [],
    sendStatus: statuses[i],
    outcomes: [],
    createdAt: new Date(at.wallNow).toISOString(),
    firstInCycle: i === 0,
  }));
  await storeOnAccept(sql, items, accepted, at);
  crashPoint('before-commit');
  return accepted;
}

/** The hosted messages of the deliveries inserted `sent`, and those deliveries' attempts. */
async function storeOnAccept(
  sql: SqlExecutor,
  items: readonly AcceptInput[],
  accepted: AcceptedInCycle[],
  at: CycleMoment,
): Promise<void> {
  const hosted: Array<{ item: number; deliveryId: number; message: NewHostedMessage }> = [];
  items.forEach((item, i) =>
    item.deliveries.forEach((d, j) => {
      if (!d.storeOnAccept) return;
      const deliveryId = accepted[i].deliveryIds[j];
      hosted.push({
        item: i,
        deliveryId,
        message: newHostedMessage(hostedMessageOf(d, deliveryId)),
      });
    }),
  );
  if (hosted.length === 0) return;
  const messages = await insertHostedMessages(
    sql,
    hosted.map((h) => h.message),
    at.wallNow,
  );
  const outcomes: StoredOutcome[] = hosted.map((h, k) => ({
    id: h.deliveryId,
    status: 'sent',
    outcome: 'sent',
    error: null,
    reply: hostedMessageReply(messages[k].id),
    startedAt: at.now,
    durationMs: 0,
    retryAt: null,
  }));
  await recordStoredAttempts(
    sql,
    outcomes.map((o) => ({ deliveryId: o.id, reply: o.reply!, startedAt: o.startedAt })),
    at.wallNow,
  );
  hosted.forEach((h, k) => {
    accepted[h.item].stored.push({
      deliveryId: h.deliveryId,
      hostedMessageId: messages[k].id,
      reply: outcomes[k].reply!,
    });
    accepted[h.item].outcomes.push(outcomes[k]);
  });
}

/** Attempts that finished together: one set-based write, one answer per outcome, in order. */
export async function recordAttempts(
  sql: SqlExecutor,
  outcomes: readonly OutcomeRecord[],
  at: CycleMoment,
): Promise<RecordedInCycle[]> {
  const recorded = await recordOutcomes(sql, [...outcomes], at.wallNow);
  const moved = new Map(recorded.moved.map((m) => [m.id, m]));
  const changed = new Map(recorded.sends.map((s) => [s.id, s.status]));
  // Why an outcome was refused, read only when one was: another claim holds the delivery now.
  const refused = outcomes.filter((o) => !moved.has(o.id)).map((o) => o.id);
  const holders = new Map(
    (await deliveryRows(sql, refused)).map((r) => [r.id, r.status === 'sending' ? r.lease : null]),
  );
  // Each changed send is reported once, with the first of its outcomes.
  return outcomes.map((o) => {
    const m = moved.get(o.id);
    const sendStatus = m ? (changed.get(m.sendId) ?? null) : null;
    if (m) changed.delete(m.sendId);
    return {
      id: o.id,
      sendId: m?.sendId ?? 0,
      recorded: m !== undefined,
      leaseLost: m === undefined && isHeldByAnother(holders.get(o.id), o.lease),
      status: o.status,
      sendStatus,
    };
  });
}

const isHeldByAnother = (holder: string | null | undefined, lease: string) =>
  holder != null && holder !== lease;

/** A claim of up to `limit` due deliveries, leaving out those already in hand. */
export interface ClaimRequest {
  limit: number;
  exclude: number[];
  /** Also take over `sending` deliveries whose lease ran out. */
  expired: boolean;
}

/**
 * The dispatcher's claims of a cycle (usually one), one after another: what the first took is
 * `sending` and no longer due for the next.
 */
export async function claimDeliveries(
  sql: SqlExecutor,
  requests: readonly ClaimRequest[],
  at: CycleMoment,
): Promise<ClaimedDelivery[][]> {
  const claimed: ClaimedDelivery[][] = [];
  for (const { limit, exclude, expired } of requests) {
    claimed.push(
      await claimDue(sql, {
        now: at.now,
        leaseUntil: at.leaseUntil,
        lease: at.lease,
        limit,
        exclude,
        wallNow: at.wallNow,
        expired,
      }),
    );
  }
  return claimed;
}

/**
 * The programs the write worker runs, by name. A BatchKind that names one of these is written
 * by the worker when it runs (writer.ts, RemoteCycles); its items and results must survive
 * structured cloning (plain data).
 */
export const DELIVERY_PROGRAMS = {
  accept: acceptSends,
  outcome: recordAttempts,
  claim: claimDeliveries,
} as const;

export type DeliveryProgramName = keyof typeof DELIVERY_PROGRAMS;
