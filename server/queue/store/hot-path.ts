/**
 * Every statement of the delivery hot path — accept, claim, attempt records, outcomes, the
 * send roll-up, requeue, recovery — in one place, as fixed parameterised SQL. Sets of rows
 * travel as one JSON parameter read with json_each, so a cycle's hundred sends are one
 * INSERT, not a hundred, and each statement's text never changes. A PostgreSQL twin of this
 * module (json_to_recordset, UPDATE … FROM) is the next step for scale-out; nothing else in
 * the server holds hot-path SQL.
 *
 * Statuses in the statements come from the state table (delivery-transitions.ts): a row
 * outside an event's `from` states is not matched, which is how refused transitions are
 * refused.
 */
import type { ContentType, Mentions } from '../../channels/channel-adapter';
import type { AttemptOutcome } from '../../db/models/delivery-attempt';
import {
  OPEN_STATUSES,
  TRANSITIONS,
  sqlList,
  type DeliveryStatus,
  type SendStatus,
} from '../delivery-transitions';
import { sqliteDate, type SqlExecutor } from '../../db/sql';
import {
  claimedDeliveries,
  countsFrom,
  deliveryRowsFrom,
  insertedIds,
  type ClaimedRow,
  type StateRow,
} from './hot-path-rows';

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
  /** `sent` when every delivery of it is stored with the accept; `pending` otherwise. */
  status?: 'pending' | 'sent';
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
  sendId: number;
  channelId: number;
  title: string;
  content: string;
  contentType: ContentType;
  url: string | null;
  recipient: string | null;
  mentions: Mentions;
  attempts: number;
  nextAttemptAt: number;
}

/** One finished attempt, as it is recorded. */
export interface OutcomeRecord {
  id: number;
  status: Extract<DeliveryStatus, 'sent' | 'retrying' | 'failed'>;
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
}

const CLAIM_DUE = sqlList(TRANSITIONS.claim.from.filter((s) => s !== 'sending'));

/**
 * The claim's candidates, one arm per status, each read in the order of the (status,
 * next_attempt_at) index and cut at the limit: with thousands of deliveries due, a claim
 * reads its batch instead of sorting the whole backlog (an OR over the statuses sorted every
 * due row on each claim). A `sending` delivery is due when its lease ran out.
 */
const CLAIM_ARMS = [
  ...TRANSITIONS.claim.from
    .filter((s) => s !== 'sending')
    .map(
      (status) => `SELECT * FROM (SELECT id, next_attempt_at FROM deliveries
         WHERE status = '${status}' AND next_attempt_at <= ?1
           AND id NOT IN (SELECT value FROM json_each(?4))
         ORDER BY next_attempt_at, id LIMIT ?3)`,
    ),
  `SELECT * FROM (SELECT id, next_attempt_at FROM deliveries
     WHERE status = 'sending' AND lease_until < ?1
       AND id NOT IN (SELECT value FROM json_each(?4))
     ORDER BY next_attempt_at, id LIMIT ?3)`,
].join(' UNION ALL ');
const OUTCOME_FROM = sqlList(TRANSITIONS.succeed.from);
const REQUEUE_FROM = sqlList(TRANSITIONS.requeue.from);
const DEFER_FROM = sqlList(TRANSITIONS.defer.from);
const RECOVER_FROM = sqlList(TRANSITIONS.recover.from);
const OPEN = sqlList(OPEN_STATUSES);

/** Inserts a cycle's sends in one statement; ids come back in the order given. */
export async function insertSends(sql: SqlExecutor, sends: NewSend[], now: number) {
  if (sends.length === 0) return [];
  const rows = await sql.all<{ id: number }>(
    `INSERT INTO sends (api, task_id, template_id, source_name, title, text, html, markdown, url,
       request, status, delivery_count, schedule_id, credential, created_at, updated_at)
     SELECT value ->> 'api', value ->> 'taskId', value ->> 'templateId', value ->> 'sourceName',
       value ->> 'title', value ->> 'text', value ->> 'html', value ->> 'markdown', value ->> 'url',
       value ->> 'request', coalesce(value ->> 'status', 'pending'), value ->> 'deliveryCount',
       value ->> 'scheduleId',
       value ->> 'credential', ?2, ?2
     FROM json_each(?1) ORDER BY key
     RETURNING id`,
    [JSON.stringify(sends), sqliteDate(now)],
  );
  // One statement on the only writer: AUTOINCREMENT ids rise in insertion order.
  return insertedIds(rows);
}

/**
 * Inserts a cycle's deliveries in one statement, `queued` (or `sent`, those stored with the
 * accept: NewDelivery.sentAt); ids in the order given.
 */
export async function insertDeliveries(sql: SqlExecutor, deliveries: NewDelivery[], now: number) {
  if (deliveries.length === 0) return [];
  const rows = await sql.all<{ id: number }>(
    `INSERT INTO deliveries (send_id, instance_id, channel_id, channel_type, content_type,
       recipient, title, content, url, mentions, preview_key, status, attempts, next_attempt_at,
       sent_at, created_at, updated_at)
     SELECT value ->> 'sendId', value ->> 'instanceId', value ->> 'channelId',
       value ->> 'channelType', value ->> 'contentType', value ->> 'recipient', value ->> 'title',
       value ->> 'content', value ->> 'url', value ->> 'mentions', value ->> 'previewKey',
       CASE WHEN value ->> 'sentAt' IS NULL THEN 'queued' ELSE 'sent' END,
       CASE WHEN value ->> 'sentAt' IS NULL THEN 0 ELSE 1 END,
       value ->> 'nextAttemptAt', value ->> 'sentAt', ?2, ?2
     FROM json_each(?1) ORDER BY key
     RETURNING id`,
    [
      JSON.stringify(
        deliveries.map((d) => (d.sentAt == null ? d : { ...d, sentAt: sqliteDate(d.sentAt) })),
      ),
      sqliteDate(now),
    ],
  );
  return insertedIds(rows);
}

/**
 * The attempt of each delivery inserted `sent` with the accept (a stored hosted message): its
 * reply on the delivery and its attempt row. No status changes, so no roll-up runs.
 */
export async function recordStoredAttempts(
  sql: SqlExecutor,
  stored: Array<{ deliveryId: number; reply: string; startedAt: number }>,
  wallNow: number,
): Promise<void> {
  if (stored.length === 0) return;
  const param = JSON.stringify(stored.map((s) => ({ ...s, startedAt: sqliteDate(s.startedAt) })));
  await Promise.all([
    sql.run(
      `UPDATE deliveries SET reply = v.reply
       FROM (SELECT value ->> 'deliveryId' AS id, value ->> 'reply' AS reply
             FROM json_each(?1)) AS v
       WHERE deliveries.id = v.id`,
      [param],
    ),
    sql.run(
      `INSERT INTO delivery_attempts (delivery_id, attempt, outcome, error, reply, duration_ms,
         started_at, created_at)
       SELECT value ->> 'deliveryId', 1, 'sent', NULL, value ->> 'reply', 0,
         value ->> 'startedAt', ?2
       FROM json_each(?1) ORDER BY key`,
      [param, sqliteDate(wallNow)],
    ),
  ]);
}

/**
 * Claims up to `limit` due deliveries in one statement: queued or retrying ones whose time
 * has come, and `sending` ones whose lease ran out (their worker died), oldest first.
 */
export async function claimDue(
  sql: SqlExecutor,
  opts: { now: number; leaseUntil: number; limit: number; exclude: number[]; wallNow: number },
): Promise<ClaimedDelivery[]> {
  const rows = await sql.all<ClaimedRow>(
    `UPDATE deliveries SET status = 'sending', lease_until = ?2, updated_at = ?5
     WHERE id IN (
       SELECT id FROM (${CLAIM_ARMS}) ORDER BY next_attempt_at, id LIMIT ?3)
     RETURNING id, send_id, channel_id, title, content, content_type, url, recipient, mentions,
       attempts, next_attempt_at`,
    [opts.now, opts.leaseUntil, opts.limit, JSON.stringify(opts.exclude), sqliteDate(opts.wallNow)],
  );
  return claimedDeliveries(rows);
}

/**
 * Records finished attempts: the deliveries still `sending` move to their outcome status, get
 * one attempt row each, and their sends are rolled up (rollUpSends), all in three statements
 * of which the last two run side by side. Returns the rows that moved (a delivery no longer
 * `sending` is refused and left alone) and the sends whose status changed.
 */
export async function recordOutcomes(
  sql: SqlExecutor,
  outcomes: OutcomeRecord[],
  wallNow: number,
): Promise<{
  moved: Array<{ id: number; sendId: number; attempts: number }>;
  sends: Array<{ id: number; status: SendStatus }>;
}> {
  if (outcomes.length === 0) return { moved: [], sends: [] };
  const at = sqliteDate(wallNow);
  // The unary + keeps SQLite off the status index: with it, the plan walked every `sending`
  // delivery and scanned the whole JSON parameter for each, which grew with the number in
  // flight (56 µs per outcome at a hundred); now each outcome is one rowid lookup.
  const moved = await sql.all<{ id: number; send_id: number; attempts: number }>(
    `UPDATE deliveries SET status = v.status, attempts = deliveries.attempts + 1,
       next_attempt_at = COALESCE(v.retry_at, deliveries.next_attempt_at), lease_until = NULL,
       last_error = v.error, reply = v.reply, sent_at = v.sent_at, updated_at = ?2
     FROM (SELECT value ->> 'id' AS id, value ->> 'status' AS status,
             value ->> 'retryAt' AS retry_at, value ->> 'error' AS error,
             value ->> 'reply' AS reply, value ->> 'sentAt' AS sent_at
           FROM json_each(?1)) AS v
     WHERE deliveries.id = v.id AND +deliveries.status IN (${OUTCOME_FROM})
     RETURNING deliveries.id, deliveries.send_id, deliveries.attempts`,
    [
      JSON.stringify(
        outcomes.map((o) => ({
          id: o.id,
          status: o.status,
          retryAt: o.retryAt,
          error: o.error,
          reply: o.reply,
          sentAt: o.status === 'sent' ? sqliteDate(o.startedAt + o.durationMs) : null,
        })),
      ),
      at,
    ],
  );
  const attemptNo = new Map(moved.map((m) => [m.id, m.attempts]));
  const recorded = outcomes.filter((o) => attemptNo.has(o.id));
  const sendIds = [...new Set(moved.map((m) => m.send_id))];
  // Neither reads what the other writes: both wait on the same turn of the event loop.
  const [sends] = await Promise.all([
    rollUpSends(sql, sendIds, wallNow),
    recorded.length > 0 && insertAttempts(),
  ]);
  return {
    moved: moved.map((m) => ({ id: m.id, sendId: m.send_id, attempts: m.attempts })),
    sends,
  };

  function insertAttempts() {
    return sql.run(
      `INSERT INTO delivery_attempts (delivery_id, attempt, outcome, error, reply, duration_ms,
         started_at, created_at)
       SELECT value ->> 'id', value ->> 'attempt', value ->> 'outcome', value ->> 'error',
         value ->> 'reply', value ->> 'durationMs', value ->> 'startedAt', ?2
       FROM json_each(?1) ORDER BY key`,
      [
        JSON.stringify(
          recorded.map((o) => ({
            id: o.id,
            attempt: attemptNo.get(o.id),
            outcome: o.outcome,
            error: o.error,
            reply: o.reply,
            durationMs: Math.max(0, Math.round(o.durationMs)),
            startedAt: sqliteDate(o.startedAt),
          })),
        ),
        at,
      ],
    );
  }
}

/**
 * Recomputes the status of the given sends from their deliveries, in one statement, and
 * returns the sends whose status changed. The CASE is statusFromCounts() in SQL.
 */
export async function rollUpSends(sql: SqlExecutor, sendIds: number[], wallNow: number) {
  if (sendIds.length === 0) return [];
  return sql.all<{ id: number; status: SendStatus }>(
    `UPDATE sends SET status = c.next, updated_at = ?2
     FROM (SELECT send_id,
             CASE WHEN SUM(status IN (${OPEN})) > 0 THEN 'pending'
                  WHEN SUM(status = 'failed') = 0 THEN
                    CASE WHEN SUM(status = 'sent') > 0 THEN 'sent' ELSE 'pending' END
                  WHEN SUM(status = 'sent') > 0 THEN 'partial'
                  ELSE 'failed' END AS next
           FROM deliveries WHERE send_id IN (SELECT value FROM json_each(?1))
           GROUP BY send_id) AS c
     WHERE sends.id = c.send_id AND sends.status <> c.next
     RETURNING sends.id, sends.status`,
    [JSON.stringify(sendIds), sqliteDate(wallNow)],
  );
}

/** Queues a delivery again now with a fresh attempt budget; null when its state refuses it. */
export async function requeue(sql: SqlExecutor, id: number, now: number, wallNow: number) {
  const [row] = await sql.all<{ send_id: number }>(
    `UPDATE deliveries SET status = 'queued', attempts = 0, next_attempt_at = ?2,
       lease_until = NULL, updated_at = ?3
     WHERE id = ?1 AND status IN (${REQUEUE_FROM})
     RETURNING send_id`,
    [id, now, sqliteDate(wallNow)],
  );
  return row ? { sendId: row.send_id } : null;
}

/** Puts a claimed delivery back for later without counting an attempt (rate limit). */
export async function defer(sql: SqlExecutor, id: number, at: number, wallNow: number) {
  const { changes } = await sql.run(
    `UPDATE deliveries SET status = CASE WHEN attempts > 0 THEN 'retrying' ELSE 'queued' END,
       next_attempt_at = ?2, lease_until = NULL, updated_at = ?3
     WHERE id = ?1 AND status IN (${DEFER_FROM})`,
    [id, at, sqliteDate(wallNow)],
  );
  return changes > 0;
}

/** At startup: every claim the last process left behind goes back to waiting. */
export async function recoverClaims(sql: SqlExecutor, wallNow: number) {
  const { changes } = await sql.run(
    `UPDATE deliveries SET status = CASE WHEN attempts > 0 THEN 'retrying' ELSE 'queued' END,
       lease_until = NULL, updated_at = ?1
     WHERE status IN (${RECOVER_FROM})`,
    [sqliteDate(wallNow)],
  );
  return changes;
}

/** The current state of some deliveries (for refusals and for V1 answers after the wait). */
export async function deliveryRows(sql: SqlExecutor, deliveryIds: number[]) {
  if (deliveryIds.length === 0) return [];
  const rows = await sql.all<StateRow>(
    `SELECT id, send_id, status, attempts, last_error, reply FROM deliveries
     WHERE id IN (SELECT value FROM json_each(?1))`,
    [JSON.stringify(deliveryIds)],
  );
  return deliveryRowsFrom(rows);
}

/** When the earliest waiting delivery is due (epoch ms), or null when none waits. */
export async function nextDueAt(sql: SqlExecutor): Promise<number | null> {
  const [row] = await sql.all<{ next: number | null }>(
    `SELECT MIN(next_attempt_at) AS next FROM deliveries WHERE status IN (${CLAIM_DUE})`,
  );
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}

/** How many deliveries of each send are in each status, in one grouped query. */
export async function countsBySend(sql: SqlExecutor, sendIds: number[]) {
  if (sendIds.length === 0) return countsFrom([]);
  const rows = await sql.all<{ send_id: number; status: DeliveryStatus; n: number }>(
    `SELECT send_id, status, COUNT(*) AS n FROM deliveries
     WHERE send_id IN (SELECT value FROM json_each(?1)) GROUP BY send_id, status`,
    [JSON.stringify(sendIds)],
  );
  return countsFrom(rows);
}
