import type { ContentType, Mentions } from '../../channels/channel-adapter';
import type { AttemptOutcome } from '../../db/models/delivery-attempt';
import type { DeliveryStatus } from '../delivery-transitions';

/**
 * What goes into the hot path's statements (hot-path.ts) and what comes out: the rows as the
 * statements return them, the same on SQLite and on PostgreSQL, and what they become.
 */

export interface NewSend {
  api: 'v1' | 'v2';
  taskId: number | null;
  templateId: number | null;
  sourceName: string;
  title: string;
  text: string | null;
  html: string | null;
  markdown: string | null;
  url: string | null;
  request: Record<string, unknown>;
  deliveryCount: number;
  /** The schedule whose run this send is (console schedules), else null. */
  scheduleId?: number | null;
  /** What opened it: token, task_id, or an imported task's Message Nest token or id. */
  credential?: string | null;
  /**
   * `sent` when every delivery of it is stored with the accept; `suppressed` for a send its
   * dedup key kept from delivery (it has none); `collected` for a send a digest collected (it
   * has none either: server/features/digests); `pending` otherwise.
   */
  status?: 'pending' | 'sent' | 'suppressed' | 'collected';
  /** 1 … 5, or null: none given. */
  priority?: number | null;
  dedupKey?: string | null;
  /** A suppressed send: the send whose dedup window it fell in. */
  suppressedBy?: number | null;
  /** V2's placeholder warnings, `{kind, key, message}` each; absent when there are none. */
  warnings?: Array<{ kind: string; key: string; message: string }>;
}

export interface NewDelivery {
  sendId: number;
  instanceId: number | null;
  channelId: number;
  channelType: string;
  contentType: ContentType;
  recipient: string | null;
  title: string;
  content: string;
  url: string | null;
  mentions: Mentions;
  /** The share-link key its hosted message will carry (hosted deliveries only). */
  previewKey?: string | null;
  /** 1 … 5, or null: the channel's default. */
  priority?: number | null;
  /** Sends with its dedup key suppressed since the last delivered one. */
  repeats?: number;
  /** The instance's own template code (Aliyun SMS); null or absent: the channel's. */
  templateCode?: string | null;
  /** The ids of the send's files as a JSON array (issue 43 §2); null or absent: none. */
  attachments?: string | null;
  nextAttemptAt: number;
  /**
   * Set for a hosted delivery stored with the accept: it is inserted `sent` at this moment,
   * with its one attempt (recordStoredAttempts), instead of `queued`.
   */
  sentAt?: number | null;
}

/** A claimed delivery: everything one attempt needs. */
export interface ClaimedDelivery {
  id: number;
  /**
   * The claim's lease token. Its outcome (or defer) is recorded only while the delivery is
   * still under this claim: once the lease ran out and another claim took the delivery over,
   * this one's outcome changes nothing.
   */
  lease: string;
  sendId: number;
  channelId: number;
  /**
   * The delivery's kind: its channel's, except for deliveries that go somewhere else on the
   * channel's behalf (a Web Push announcing a hosted message). Absent: the channel's.
   */
  channelType?: string;
  title: string;
  content: string;
  contentType: ContentType;
  url: string | null;
  recipient: string | null;
  mentions: Mentions;
  priority: number | null;
  repeats: number;
  templateCode: string | null;
  /** The ids of the send's files, in the order sent; absent when it has none. */
  attachmentIds?: string[];
  attempts: number;
  nextAttemptAt: number;
}

/** One finished attempt, as it is recorded. */
export interface OutcomeRecord {
  id: number;
  /** The lease token of the claim the attempt ran under (ClaimedDelivery.lease). */
  lease: string;
  status: Extract<DeliveryStatus, 'sent' | 'retrying' | 'failed' | 'suppressed'>;
  outcome: AttemptOutcome;
  error: string | null;
  reply: string | null;
  startedAt: number;
  durationMs: number;
  /** When the next attempt is due (retrying only). */
  retryAt: number | null;
}

export interface DeliveryRow {
  id: number;
  sendId: number;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  reply: string | null;
  /** The lease token of the claim that holds it (`sending` only), else null. */
  lease: string | null;
}

/** Ids that an INSERT … RETURNING gave back, in the order they were inserted. */
export const insertedIds = (rows: Array<{ id: unknown }>): number[] =>
  rows.map((r) => Number(r.id)).sort((a, b) => a - b);

/** The columns a claim returns. */
export type ClaimedRow = {
  id: number;
  send_id: number;
  channel_id: number;
  channel_type: string;
  title: string;
  content: string;
  content_type: ContentType;
  url: string | null;
  recipient: string | null;
  /** The mentions column as JSON text. */
  mentions: string;
  priority: number | null;
  repeats: number;
  attempts: number;
  next_attempt_at: number;
  lease_token: string;
  template_code: string | null;
  attachments: string | null;
};

/** Claimed deliveries, oldest due first (RETURNING promises no order). */
export function claimedDeliveries(rows: ClaimedRow[]): ClaimedDelivery[] {
  return rows
    .map((r) => ({
      id: r.id,
      lease: r.lease_token,
      sendId: r.send_id,
      channelId: r.channel_id,
      channelType: r.channel_type,
      title: r.title,
      content: r.content,
      contentType: r.content_type,
      url: r.url,
      recipient: r.recipient,
      mentions: JSON.parse(r.mentions) as Mentions,
      priority: r.priority === null ? null : Number(r.priority),
      repeats: Number(r.repeats),
      templateCode: r.template_code ?? null,
      ...(r.attachments && { attachmentIds: JSON.parse(r.attachments) as string[] }),
      attempts: r.attempts,
      nextAttemptAt: Number(r.next_attempt_at),
    }))
    .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
}

/** The columns `deliveryRows` reads. */
export type StateRow = {
  id: number;
  send_id: number;
  status: DeliveryStatus;
  attempts: number;
  last_error: string | null;
  reply: string | null;
  lease_token: string | null;
};

export const deliveryRowsFrom = (rows: StateRow[]): DeliveryRow[] =>
  rows.map((r) => ({
    id: r.id,
    sendId: r.send_id,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    reply: r.reply,
    lease: r.lease_token,
  }));

/** Grouped counts (`send_id, status, n`) as a map of send to counts per status. */
export function countsFrom(
  rows: Array<{ send_id: number; status: DeliveryStatus; n: number }>,
): Map<number, Partial<Record<DeliveryStatus, number>>> {
  const counts = new Map<number, Partial<Record<DeliveryStatus, number>>>();
  for (const row of rows) {
    const c = counts.get(row.send_id) ?? {};
    c[row.status] = Number(row.n);
    counts.set(row.send_id, c);
  }
  return counts;
}
