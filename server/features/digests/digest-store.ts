/**
 * The statements of digests (migration 2026-12-03-1300), the same on SQLite and PostgreSQL.
 * Collecting and closing each run inside one write transaction (digest-collector.ts,
 * digest-closer.ts); what keeps two processes on one PostgreSQL database from doubling a
 * digest is said at each statement.
 */
import { dialectOf, perDialect } from '../../db/sql-dialect';
import type { SqlExecutor } from '../../db/sql';

/**
 * The open digest of a scope and key, joined or opened. The partial unique index (one `open`
 * row per scope and key) is the conflict target: a second process opening the same digest at
 * once meets the first one's row and counts on it. While a closing transaction holds the row
 * (its conditional UPDATE, below), PostgreSQL makes the upsert wait; once the close commits the
 * row is no longer open, so the upsert opens a new digest instead of joining a delivered one.
 */
const JOIN = perDialect(
  ({ param: p }) =>
    `INSERT INTO digests AS d (scope, digest_key, task_id, template_id, instance_id, status,
       window_until, first_at, last_at, item_count, created_at)
     VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(8)}, 'open', ${p(5)}, ${p(6)}, ${p(6)}, 1,
       ${p(7)})
     ON CONFLICT (scope, digest_key) WHERE status = 'open' DO UPDATE SET
       item_count = d.item_count + 1, last_at = ${p(6)}
     RETURNING id, window_until`,
);

const ADD_SEND = perDialect(
  ({ param: p }) =>
    `INSERT INTO digest_sends (send_id, digest_id, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)})
     ON CONFLICT (digest_id, send_id) DO NOTHING`,
);

export interface DigestSlot {
  /** `task:<id>`, `template:<id>`, or `instance:<id>` for an instance's own digest. */
  scope: string;
  key: string;
  taskId: number | null;
  templateId: number | null;
  /** An instance's digest: the one instance it delivers to; null: every instance. */
  instanceId: number | null;
  /** When a digest opened now closes. */
  until: number;
}

/** Joins (or opens) the slot's digest with one send; answers the digest and when it closes. */
export async function joinDigest(
  sql: SqlExecutor,
  slot: DigestSlot,
  sendId: number,
  now: number,
  wallNow: number,
): Promise<{ digestId: number; until: number }> {
  const d = dialectOf(sql).name;
  const [row] = await sql.all<{ id: number | string; window_until: number | string }>(JOIN[d], [
    slot.scope,
    slot.key,
    slot.taskId,
    slot.templateId,
    slot.until,
    now,
    wallNow,
    slot.instanceId,
  ]);
  const digestId = Number(row.id);
  await sql.run(ADD_SEND[d], [sendId, digestId, now]);
  return { digestId, until: Number(row.window_until) };
}

/**
 * The claim of a window: one conditional UPDATE, so of two processes (or two ticks) closing
 * the same digest exactly one changes the row, and only it stores the digest's send, in the
 * same transaction. A crash before the commit leaves the digest open for the next tick.
 */
const CLAIM = perDialect(
  ({ param: p }) =>
    `UPDATE digests SET status = 'closed', closed_at = ${p(2)} WHERE id = ${p(1)} AND status = 'open'`,
);

export async function claimDigest(sql: SqlExecutor, digestId: number, now: number) {
  const { changes } = await sql.run(CLAIM[dialectOf(sql).name], [digestId, now]);
  return changes === 1;
}

const SET_SEND = perDialect(
  ({ param: p }) => `UPDATE digests SET send_id = ${p(2)} WHERE id = ${p(1)}`,
);

export async function setDigestSend(sql: SqlExecutor, digestId: number, sendId: number) {
  await sql.run(SET_SEND[dialectOf(sql).name], [digestId, sendId]);
}

/** An open digest as the closer reads it. */
export interface DigestRow {
  id: number;
  scope: string;
  key: string;
  taskId: number | null;
  templateId: number | null;
  instanceId: number | null;
  until: number;
}

export interface CarriedSend {
  id: number;
  title: string;
  createdAt: number;
  recipients: string[];
}

const CARRIED = perDialect(
  ({ name, param: p }) =>
    `SELECT s.id, s.title, ds.created_at, s.request${name === 'postgres' ? '::text' : ''} AS request
     FROM digest_sends ds JOIN sends s ON s.id = ds.send_id
     WHERE ds.digest_id = ${p(1)} ORDER BY ds.created_at, s.id`,
);

/**
 * The sends a digest collected, oldest first, with the recipients each named (a dynamic-
 * recipient instance sends the digest to each of them). Read after the claim, in its
 * transaction: every send that joined the digest before the claim is committed by then.
 */
export async function carriedSends(sql: SqlExecutor, digestId: number): Promise<CarriedSend[]> {
  const rows = await sql.all<{
    id: number | string;
    title: string;
    created_at: number | string;
    request: string | Record<string, unknown> | null;
  }>(CARRIED[dialectOf(sql).name], [digestId]);
  return rows.map((r) => ({
    id: Number(r.id),
    title: r.title,
    createdAt: Number(r.created_at),
    recipients: recipientsOf(r.request),
  }));
}

function recipientsOf(request: string | Record<string, unknown> | null): string[] {
  let parsed: unknown = request;
  if (typeof request === 'string') {
    try {
      parsed = JSON.parse(request);
    } catch {
      return [];
    }
  }
  const list = (parsed as { recipients?: unknown } | null)?.recipients;
  return Array.isArray(list) ? list.filter((r): r is string => typeof r === 'string') : [];
}
