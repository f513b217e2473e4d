import type { DeliveryStatus } from '../db/models/delivery';
import type { SendStatus } from '../db/models/send';

export type { DeliveryStatus, SendStatus };

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = [
  'queued',
  'sending',
  'retrying',
  'sent',
  'failed',
  'suppressed',
];

/** Not finished yet: the send they belong to is still pending. */
export const OPEN_STATUSES: readonly DeliveryStatus[] = ['queued', 'sending', 'retrying'];

/**
 * What can happen to a delivery after it was accepted. It starts `queued`; a hosted delivery
 * whose message the accept stores in its own transaction starts `sent`, its one attempt
 * recorded (delivery-programs.ts), and never takes part in these events.
 */
export type DeliveryEvent =
  'claim' | 'succeed' | 'retry' | 'fail' | 'suppress' | 'defer' | 'requeue' | 'recover';

export interface Transition {
  /** The states the event may start from; from any other state it is refused. */
  from: readonly DeliveryStatus[];
  /** Where it leads; `waiting` is `queued` before the first attempt and `retrying` after. */
  to: DeliveryStatus | 'waiting';
  /** Who triggers it, for docs/architecture.md. */
  by: string;
}

/**
 * The delivery state table. Every write of a delivery's status goes through DeliveryState,
 * whose statements only match rows in a `from` state of this table, so a transition that is
 * not here cannot happen, whoever asks for it.
 */
export const TRANSITIONS: Readonly<Record<DeliveryEvent, Transition>> = {
  claim: {
    from: ['queued', 'retrying', 'sending'],
    to: 'sending',
    by: 'dispatcher loop, when next_attempt_at is due (sending: only once its lease ran out)',
  },
  succeed: {
    from: ['sending'],
    to: 'sent',
    by: 'dispatcher, the adapter accepted the message',
  },
  retry: {
    from: ['sending'],
    to: 'retrying',
    by: 'dispatcher, a transient failure with attempts left (next_attempt_at from backoff)',
  },
  fail: {
    from: ['sending'],
    to: 'failed',
    by: 'dispatcher, a permanent failure, the last attempt used up, or the channel is gone',
  },
  suppress: {
    from: ['sending'],
    to: 'suppressed',
    by: "dispatcher, a quiet-hours rule's drop (its reason kept as last_error); nothing is sent",
  },
  defer: {
    from: ['sending'],
    to: 'waiting',
    by: "dispatcher, the channel's rate limit is full, or the adapter deferred it (DeliveryError.deferred, its reason kept as last_error); not counted as an attempt",
  },
  requeue: {
    from: ['queued', 'retrying', 'failed'],
    to: 'queued',
    by: 'console "retry now" (POST /deliveries/:id/retry), with a fresh attempt budget',
  },
  recover: {
    from: ['sending'],
    to: 'waiting',
    by: 'startup: a claim the previous process left behind is put back',
  },
};

export interface TransitionFacts {
  /** Attempts recorded so far. */
  attempts: number;
  /** For claim: next_attempt_at has come. */
  due?: boolean;
  /** For claim of a `sending` row: its lease has run out. */
  leaseExpired?: boolean;
}

/** Where `event` takes a delivery in state `from`, or null when the table refuses it. */
export function nextStatus(
  event: DeliveryEvent,
  from: DeliveryStatus,
  facts: TransitionFacts,
): DeliveryStatus | null {
  const t = TRANSITIONS[event];
  if (!t.from.includes(from)) return null;
  if (event === 'claim' && (from === 'sending' ? !facts.leaseExpired : !facts.due)) return null;
  if (t.to === 'waiting') return facts.attempts > 0 ? 'retrying' : 'queued';
  return t.to;
}

/**
 * A send's status from its deliveries' statuses: pending while any is open, then sent,
 * partial or failed (or suppressed, when every delivery was dropped). hot-path.ts computes the same in SQL; a unit test holds them together.
 */
export function statusFromCounts(c: Partial<Record<DeliveryStatus, number>>): SendStatus {
  const sent = c.sent ?? 0;
  const failed = c.failed ?? 0;
  const open = OPEN_STATUSES.reduce((n, s) => n + (c[s] ?? 0), 0);
  if (open > 0) return 'pending';
  // Dropped deliveries (quiet hours) count as neither: a send all of whose are is suppressed.
  if (failed === 0) return sent > 0 ? 'sent' : (c.suppressed ?? 0) > 0 ? 'suppressed' : 'pending';
  return sent > 0 ? 'partial' : 'failed';
}

/** The states as an SQL list literal; only ever built from the constants above. */
export function sqlList(states: readonly DeliveryStatus[]): string {
  for (const s of states) {
    if (!DELIVERY_STATUSES.includes(s)) throw new Error(`not a delivery status: ${s}`);
  }
  return states.map((s) => `'${s}'`).join(', ');
}
