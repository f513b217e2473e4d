import type { ContentType } from '../channels/channel-adapter';
import { at, idsIn, json } from './postgres/json-params';
import { sqliteDate, type SqlExecutor } from './sql';

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
 * Where the two dialects differ: how the JSON array parameter becomes rows (in the order
 * given), the casts PostgreSQL needs, the placeholders and the date parameter.
 */
const DIALECT = {
  sqlite: {
    field: (name: string) => `value ->> '${name}'`,
    id: (name: string) => `value ->> '${name}'`,
    now: '?2',
    rows: `json_each(?1) WHERE true ORDER BY key`,
    storedIn: `(SELECT value FROM json_each(?1))`,
    json: (value: unknown) => JSON.stringify(value),
    date: sqliteDate,
  },
  postgres: {
    field: (name: string) => `value ->> '${name}'`,
    id: (name: string) => `(value ->> '${name}')::integer`,
    now: '$2::timestamptz',
    rows: `jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(value, i) ORDER BY i`,
    storedIn: idsIn('$1'),
    json,
    date: at,
  },
} as const;

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
  const d = DIALECT[sql.dialect ?? 'sqlite'];
  const inserted = await sql.all<{ id: number; delivery_id: number | null }>(
    `INSERT INTO hosted_messages (channel_id, delivery_id, title, content, format, url,
       preview_key, created_at, updated_at)
     SELECT ${d.id('channelId')}, ${d.id('deliveryId')}, ${d.field('title')},
       ${d.field('content')}, ${d.field('format')}, ${d.field('url')},
       -- The share link answered at accept time: its key was stored on the delivery.
       (SELECT dl.preview_key FROM deliveries dl WHERE dl.id = ${d.id('deliveryId')}),
       ${d.now}, ${d.now}
     FROM ${d.rows}
     ON CONFLICT (delivery_id) DO NOTHING
     RETURNING id, delivery_id`,
    [d.json(messages), d.date(wallNow)],
  );
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
    const rows = await sql.all<{ id: number; delivery_id: number }>(
      `SELECT id, delivery_id FROM hosted_messages WHERE delivery_id IN ${d.storedIn}`,
      [d.json(stored)],
    );
    for (const row of rows) byDelivery.set(row.delivery_id, row.id);
  }
  const fresh = new Set(inserted.map((r) => r.id));
  let next = 0;
  return messages.map((m) => {
    const id = m.deliveryId === null ? withoutDelivery[next++] : byDelivery.get(m.deliveryId)!;
    return { id, fresh: fresh.has(id) };
  });
}
