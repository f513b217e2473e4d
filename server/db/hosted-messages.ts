import type { ContentType, OutboundMessage } from '../channels/channel-adapter';
import type { HostedMessageEvent } from '../events';
import { dialectOf, perDialect } from './sql-dialect';
import type { SqlExecutor } from './sql';

/*
 * A hosted delivery's message is made at accept (queue/delivery-programs.ts, when the
 * delivery is stored with its send) or by the hosted adapter when the queue delivers it
 * (channels/hosted.ts, then hosted-store.ts): both build it, its row, its attempt's reply and
 * its `message` event with the functions below, so the two paths store and announce the same.
 */

/** A hosted message as the hosted channel hands it to storage (AdapterRuntime's input). */
export interface HostedMessageDraft {
  /** Its channel; zero for a console test of a channel not saved yet. */
  channelId: number;
  /** Its delivery; zero or negative for a console test send, which has none. */
  deliveryId: number;
  title: string;
  content: string;
  format: ContentType;
  url: string | null;
}

/** A hosted message to store, as the hosted channel delivers it. */
export interface NewHostedMessage {
  /** Null for a console test of a channel not saved yet. */
  channelId: number | null;
  /** Null for a console test send, which has no delivery. */
  deliveryId: number | null;
  title: string;
  content: string;
  format: ContentType;
  url: string | null;
}

/** The message a hosted delivery stores: its content, in the format chosen for its instance. */
export function hostedMessageOf(
  delivery: Pick<OutboundMessage, 'channelId' | 'title' | 'content' | 'contentType' | 'url'>,
  deliveryId: number,
): HostedMessageDraft {
  return {
    channelId: delivery.channelId,
    deliveryId,
    title: delivery.title,
    content: delivery.content,
    format: delivery.contentType,
    url: delivery.url,
  };
}

/**
 * The row a hosted message is stored as. Its share-link key and priority are its delivery's,
 * read by the INSERT itself, so they are not part of it.
 */
export function newHostedMessage(draft: HostedMessageDraft): NewHostedMessage {
  return {
    channelId: draft.channelId > 0 ? draft.channelId : null,
    deliveryId: draft.deliveryId > 0 ? draft.deliveryId : null,
    title: draft.title,
    content: draft.content,
    format: draft.format,
    url: draft.url,
  };
}

/** The reply a hosted delivery's attempt records: which message it stored. */
export function hostedMessageReply(id: number): string {
  return `stored as hosted message ${id}`;
}

/** The `message` event of a stored hosted message, for the reader, the tray and notifications. */
export function hostedMessageEvent(
  message: Pick<HostedMessageDraft, 'title' | 'content' | 'format' | 'url'>,
  id: number,
  priority: number | null | undefined,
  createdAt: string,
): HostedMessageEvent {
  return {
    id,
    title: message.title,
    content: message.content,
    format: message.format,
    url: message.url,
    priority: priority ?? null,
    createdAt,
  };
}

/**
 * The messages, in the order given; each takes the share-link key answered at accept time,
 * stored on its delivery, its delivery's priority and its delivery's files (the ids; the
 * reader looks the files up, so one that expired is simply no longer listed). (`WHERE true`: without a WHERE, SQLite would read the upsert's ON as
 * a join constraint.)
 */
const INSERT = perDialect(
  ({ field: v, dateParam: at, rows }) =>
    `INSERT INTO hosted_messages (channel_id, delivery_id, title, content, format, url,
       preview_key, priority, attachments, created_at, updated_at)
     SELECT ${v('channelId', 'integer')}, ${v('deliveryId', 'integer')}, ${v('title')},
       ${v('content')}, ${v('format')}, ${v('url')},
       (SELECT dl.preview_key FROM deliveries dl WHERE dl.id = ${v('deliveryId', 'integer')}),
       (SELECT dl.priority FROM deliveries dl WHERE dl.id = ${v('deliveryId', 'integer')}),
       (SELECT dl.attachments FROM deliveries dl WHERE dl.id = ${v('deliveryId', 'integer')}),
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
