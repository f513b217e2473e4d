import type { ContentType } from '../channels/channel-adapter';
import { dialectOf, perDialect } from './sql-dialect';
import type { SqlExecutor } from './sql';

/** A hosted message to store, as the hosted channel delivers it. */
export interface NewHostedMessage {
  channelId: number;
  /** Null for a console test send, which has no delivery. */
  deliveryId: number | null;
  title: string;
  content: string;
  format: ContentType;
  url: string | null;
}

/**
 * The messages, in the order given; each takes the share-link key answered at accept time,
 * stored on its delivery, and its delivery's priority. (`WHERE true`: without a WHERE, SQLite would read the upsert's ON as
 * a join constraint.)
 */
const INSERT = perDialect(
  ({ field: v, dateParam: at, rows }) =>
    `INSERT INTO hosted_messages (channel_id, delivery_id, title, content, format, url,
       preview_key, priority, created_at, updated_at)
     SELECT ${v('channelId', 'integer')}, ${v('deliveryId', 'integer')}, ${v('title')},
       ${v('content')}, ${v('format')}, ${v('url')},
       (SELECT dl.preview_key FROM deliveries dl WHERE dl.id = ${v('deliveryId', 'integer')}),
       (SELECT dl.priority FROM deliveries dl WHERE dl.id = ${v('deliveryId', 'integer')}),
       ${at(2)}, ${at(2)}
     FROM ${rows(1)} WHERE true ORDER BY key
     ON CONFLICT (delivery_id) DO NOTHING
     RETURNING id, delivery_id`,
);

const STORED = perDialect(
  ({ ids }) => `SELECT id, delivery_id FROM hosted_messages WHERE delivery_id IN ${ids(1)}`,
);

/**
 * Stores hosted messages in one statement and returns their ids in the order given. A
 * delivery whose message is already stored (its attempt died before recording success) gets
 * the stored message's id instead of a second copy (`fresh: false`).
 */
export async function insertHostedMessages(
  sql: SqlExecutor,
  messages: NewHostedMessage[],
  wallNow: number,
): Promise<Array<{ id: number; fresh: boolean }>> {
  if (messages.length === 0) return [];
  const d = dialectOf(sql);
  const inserted = await sql.all<{ id: number; delivery_id: number | null }>(INSERT[d.name], [
    d.json(messages),
    d.date(wallNow),
  ]);
  const byDelivery = new Map<number, number>();
  const withoutDelivery: number[] = [];
  for (const row of inserted.sort((a, b) => a.id - b.id)) {
    if (row.delivery_id === null) withoutDelivery.push(row.id);
    else byDelivery.set(row.delivery_id, row.id);
  }
  const stored = messages
    .map((m) => m.deliveryId)
    .filter((id): id is number => id !== null && !byDelivery.has(id));
  if (stored.length > 0) {
    const rows = await sql.all<{ id: number; delivery_id: number }>(STORED[d.name], [
      d.json(stored),
    ]);
    for (const row of rows) byDelivery.set(row.delivery_id, row.id);
  }
  const fresh = new Set(inserted.map((r) => r.id));
  let next = 0;
  return messages.map((m) => {
    const id = m.deliveryId === null ? withoutDelivery[next++] : byDelivery.get(m.deliveryId)!;
    return { id, fresh: fresh.has(id) };
  });
}
