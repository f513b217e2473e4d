import type { ContentType, Mentions } from '../../channels/channel-adapter';
import type { DeliveryStatus } from '../delivery-transitions';
import type { ClaimedDelivery, DeliveryRow } from './hot-path';

/**
 * Rows as the hot path's statements return them, and what they become: the same on SQLite and
 * on PostgreSQL (hot-path.ts and postgres/hot-path-postgres.ts differ in their SQL only).
 */

/** Ids that an INSERT … RETURNING gave back, in the order they were inserted. */
export const insertedIds = (rows: Array<{ id: unknown }>): number[] =>
  rows.map((r) => Number(r.id)).sort((a, b) => a - b);

/** The columns a claim returns. */
export type ClaimedRow = {
  id: number;
  send_id: number;
  channel_id: number;
  title: string;
  content: string;
  content_type: ContentType;
  url: string | null;
  recipient: string | null;
  /** The mentions column as JSON text. */
  mentions: string;
  attempts: number;
  next_attempt_at: number;
};

/** Claimed deliveries, oldest due first (RETURNING promises no order). */
export function claimedDeliveries(rows: ClaimedRow[]): ClaimedDelivery[] {
  return rows
    .map((r) => ({
      id: r.id,
      sendId: r.send_id,
      channelId: r.channel_id,
      title: r.title,
      content: r.content,
      contentType: r.content_type,
      url: r.url,
      recipient: r.recipient,
      mentions: JSON.parse(r.mentions) as Mentions,
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
};

export const deliveryRowsFrom = (rows: StateRow[]): DeliveryRow[] =>
  rows.map((r) => ({
    id: r.id,
    sendId: r.send_id,
    status: r.status,
    attempts: r.attempts,
    lastError: r.last_error,
    reply: r.reply,
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
