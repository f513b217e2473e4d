/**
 * Every write of the delivery hot path — accept, claim, attempt records, outcomes, the send
 * roll-up, requeue, defer, recovery — written once (its reads: hot-path-reads.ts), for SQLite
 * and PostgreSQL alike: where the dialects differ the text takes a fragment of
 * server/db/sql-dialect.ts (placeholders, how a JSON parameter becomes rows, casts, dates).
 * Each text is built once per dialect when this module loads, so it never changes and its
 * prepared statement is kept. Sets of rows travel as one JSON parameter: a cycle's hundred
 * sends are one INSERT, not a hundred. Nothing else in the server holds hot-path SQL but
 * hot-path-reads.ts, hot-path-recovery.ts (claims left behind) and server/db/hosted-messages.ts.
 *
 * Statuses in the statements come from the state table (delivery-transitions.ts): a row
 * outside an event's `from` states is not matched, which is how refused transitions are
 * refused. A claim writes its lease token on the rows it takes, and every outcome and defer
 * matches only rows still under the token of the claim it ran under: once a lease ran out and
 * another claim (another process, on PostgreSQL) took the delivery over, the late outcome of
 * the first changes nothing.
 *
 * What only PostgreSQL does, because several processes may share its database, is in
 * CONCURRENCY below: claims skip rows another process is claiming, the send roll-up locks its
 * sends, and startup recovery asks whether another process runs.
 */
import { OPEN_STATUSES, TRANSITIONS, sqlList, type SendStatus } from '../delivery-transitions';
import { ADVISORY_LOCKS } from '../../db/postgres/advisory-locks';
import { DIALECTS, dialectOf, perDialect } from '../../db/sql-dialect';
import type { SqlExecutor } from '../../db/sql';
import {
  claimedDeliveries,
  insertedIds,
  type ClaimedDelivery,
  type ClaimedRow,
  type NewDelivery,
  type NewSend,
  type OutcomeRecord,
} from './hot-path-rows';

export type {
  ClaimedDelivery,
  DeliveryRow,
  NewDelivery,
  NewSend,
  OutcomeRecord,
} from './hot-path-rows';

const WAITING = TRANSITIONS.claim.from.filter((s) => s !== 'sending');
const CLAIM_DUE = sqlList(WAITING);
const OUTCOME_FROM = sqlList(TRANSITIONS.succeed.from);
const REQUEUE_FROM = sqlList(TRANSITIONS.requeue.from);
const DEFER_FROM = sqlList(TRANSITIONS.defer.from);
const OPEN = sqlList(OPEN_STATUSES);

/**
 * Which rows a claim takes (params: 1 now, 3 limit, 4 ids to leave out), and the locks that
 * only several processes on one database need.
 */
export const CONCURRENCY = {
  sqlite: {
    /**
     * One arm per status, each read in the order of the (status, next_attempt_at) index and
     * cut at the limit: with thousands of deliveries due, a claim reads its batch instead of
     * sorting the whole backlog (an OR over the statuses sorted every due row on each claim).
     * A `sending` delivery is due when its lease ran out; that arm walks every delivery in
     * flight, so claims look for run-out leases only now and then (`expired`, see
     * DeliveryState.claim). The one writer of the file needs no row locks.
     */
    claimWith: () => '',
    claimIds: (expired: boolean) =>
      `SELECT id FROM (${[
        ...WAITING.map((status) => `status = '${status}' AND next_attempt_at <= ?1`),
        ...(expired ? [`status = 'sending' AND lease_until < ?1`] : []),
      ]
        .map(
          (due) => `SELECT * FROM (SELECT id, next_attempt_at FROM deliveries
           WHERE ${due} AND id NOT IN ${DIALECTS.sqlite.ids(4)}
           ORDER BY next_attempt_at, id LIMIT ?3)`,
        )
        .join(' UNION ALL ')}) ORDER BY next_attempt_at, id LIMIT ?3`,
    lockSends: null,
    processes: null,
  },
  postgres: {
    /**
     * `SKIP LOCKED`: a row another process is claiming in a transaction not yet committed is
     * skipped, not waited for; once committed its lease keeps everyone else off. (Locking
     * clauses are not allowed beside UNION, and per arm they would lock rows left unclaimed.)
     */
    claimWith: (expired: boolean) => `WITH due AS (
       SELECT id FROM deliveries
       WHERE ((status IN (${CLAIM_DUE}) AND next_attempt_at <= $1)
           ${expired ? `OR (status = 'sending' AND lease_until < $1)` : ''})
         AND id NOT IN ${DIALECTS.postgres.ids(4)}
       ORDER BY next_attempt_at, id LIMIT $3
       FOR UPDATE SKIP LOCKED)`,
    claimIds: () => 'SELECT id FROM due',
    /**
     * The sends are locked in id order before their deliveries are counted: a process that
     * records another delivery of the same send waits here until this one commits, and then
     * (a new statement, a new snapshot under READ COMMITTED) counts this one's outcome too.
     * Without it two processes could each count the other's delivery as still open.
     */
    lockSends: `SELECT id FROM sends WHERE id IN ${DIALECTS.postgres.ids(1)} ORDER BY id FOR UPDATE`,
    /**
     * Every Herald process on the database holds this advisory lock shared, on its Writer's
     * connection, from its startup recovery on; PostgreSQL releases it when the connection
     * ends, a SIGKILL included.
     */
    processes: {
      alone: `SELECT pg_try_advisory_lock(${ADVISORY_LOCKS.processes}) AS alone`,
      join: `SELECT pg_advisory_lock_shared(${ADVISORY_LOCKS.processes})`,
      release: `SELECT pg_advisory_unlock(${ADVISORY_LOCKS.processes})`,
    },
  },
} as const;

const INSERT_SENDS = perDialect(
  ({ field: v, dateParam: at, rows }) =>
    `INSERT INTO sends (api, task_id, template_id, source_name, title, text, html, markdown, url,
       request, status, delivery_count, schedule_id, credential, priority, dedup_key,
       suppressed_by, warnings, created_at, updated_at)
     SELECT ${v('api')}, ${v('taskId', 'integer')}, ${v('templateId', 'integer')},
       ${v('sourceName')}, ${v('title')}, ${v('text')}, ${v('html')}, ${v('markdown')},
       ${v('url')}, ${v('request', 'json')}, coalesce(${v('status')}, 'pending'),
       ${v('deliveryCount', 'integer')}, ${v('scheduleId', 'integer')}, ${v('credential')},
       ${v('priority', 'integer')}, ${v('dedupKey')}, ${v('suppressedBy', 'integer')},
       ${v('warnings', 'json')}, ${at(2)}, ${at(2)}
     FROM ${rows(1)} ORDER BY key
     RETURNING id`,
);

/**
 * Inserts a cycle's sends in one statement; ids come back in the order given (one statement
 * on the database's writer draws its ids in the order its rows are produced, and they rise).
 */
export async function insertSends(sql: SqlExecutor, sends: NewSend[], now: number) {
  if (sends.length === 0) return [];
  const d = dialectOf(sql);
  const rows = await sql.all<{ id: number }>(INSERT_SENDS[d.name], [d.json(sends), d.date(now)]);
  return insertedIds(rows);
}

const INSERT_DELIVERIES = perDialect(
  ({ field: v, dateParam: at, rows }) =>
    `INSERT INTO deliveries (send_id, instance_id, channel_id, channel_type, content_type,
       recipient, title, content, url, mentions, preview_key, priority, repeats, status, attempts,
       next_attempt_at, sent_at, template_code, attachments, created_at, updated_at)
     SELECT ${v('sendId', 'integer')}, ${v('instanceId', 'integer')},
       ${v('channelId', 'integer')}, ${v('channelType')}, ${v('contentType')}, ${v('recipient')},
       ${v('title')}, ${v('content')}, ${v('url')}, ${v('mentions', 'json')}, ${v('previewKey')},
       ${v('priority', 'integer')}, coalesce(${v('repeats', 'integer')}, 0),
       CASE WHEN ${v('sentAt')} IS NULL THEN 'queued' ELSE 'sent' END,
       CASE WHEN ${v('sentAt')} IS NULL THEN 0 ELSE 1 END,
       ${v('nextAttemptAt', 'bigint')}, ${v('sentAt', 'timestamptz')}, ${v('templateCode')},
       ${v('attachments')}, ${at(2)}, ${at(2)}
     FROM ${rows(1)} ORDER BY key
     RETURNING id`,
);

/**
 * Inserts a cycle's deliveries in one statement, `queued` (or `sent`, those stored with the
 * accept: NewDelivery.sentAt); ids in the order given.
 */
export async function insertDeliveries(sql: SqlExecutor, deliveries: NewDelivery[], now: number) {
  if (deliveries.length === 0) return [];
  const d = dialectOf(sql);
  const rows = await sql.all<{ id: number }>(INSERT_DELIVERIES[d.name], [
    d.json(deliveries.map((x) => (x.sentAt == null ? x : { ...x, sentAt: d.date(x.sentAt) }))),
    d.date(now),
  ]);
  return insertedIds(rows);
}

/** Attempt rows (params: 1 the attempts, 2 created_at). */
const INSERT_ATTEMPTS = perDialect(
  ({ field: v, dateParam: at, rows }) =>
    `INSERT INTO delivery_attempts (delivery_id, attempt, outcome, error, reply, duration_ms,
       started_at, created_at)
     SELECT ${v('id', 'integer')}, ${v('attempt', 'integer')}, ${v('outcome')}, ${v('error')},
       ${v('reply')}, ${v('durationMs', 'integer')}, ${v('startedAt', 'timestamptz')}, ${at(2)}
     FROM ${rows(1)} ORDER BY key`,
);

const SET_REPLIES = perDialect(
  ({ field: v, rows }) =>
    `UPDATE deliveries SET reply = v.reply
     FROM (SELECT ${v('id', 'integer')} AS id, ${v('reply')} AS reply FROM ${rows(1)}) AS v
     WHERE deliveries.id = v.id`,
);

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
  const d = dialectOf(sql);
  // One parameter for both: the attempt rows, whose id and reply the update reads.
  const attempts = d.json(
    stored.map((s) => ({
      id: s.deliveryId,
      attempt: 1,
      outcome: 'sent',
      error: null,
      reply: s.reply,
      durationMs: 0,
      startedAt: d.date(s.startedAt),
    })),
  );
  // Neither reads what the other writes: both are issued at once.
  await Promise.all([
    sql.run(SET_REPLIES[d.name], [attempts]),
    sql.run(INSERT_ATTEMPTS[d.name], [attempts, d.date(wallNow)]),
  ]);
}

const claimText = (expired: boolean) =>
  perDialect(
    ({ name, param: p, dateParam: at, jsonText }) =>
      `${CONCURRENCY[name].claimWith(expired)}
     UPDATE deliveries SET status = 'sending', lease_until = ${p(2)}, lease_token = ${p(6)},
       updated_at = ${at(5)}
     WHERE id IN (${CONCURRENCY[name].claimIds(expired)})
     RETURNING id, send_id, channel_id, channel_type, title, content, content_type, url, recipient,
       ${jsonText('mentions')}, priority, repeats, attempts, next_attempt_at, lease_token,
       template_code, attachments`,
  );
/** Claims of due waiting deliveries, and the same with run-out leases taken over too. */
const CLAIM = { waiting: claimText(false), expired: claimText(true) };

/**
 * Claims up to `limit` due deliveries in one statement, under the lease token `lease`: queued
 * or retrying ones whose time has come and, with `expired`, `sending` ones whose lease ran out
 * (their worker died, or on PostgreSQL their process), oldest first.
 */
export async function claimDue(
  sql: SqlExecutor,
  opts: {
    now: number;
    leaseUntil: number;
    lease: string;
    limit: number;
    exclude: number[];
    wallNow: number;
    expired: boolean;
  },
): Promise<ClaimedDelivery[]> {
  const d = dialectOf(sql);
  const rows = await sql.all<ClaimedRow>(CLAIM[opts.expired ? 'expired' : 'waiting'][d.name], [
    opts.now,
    opts.leaseUntil,
    opts.limit,
    d.json(opts.exclude),
    d.date(opts.wallNow),
    opts.lease,
  ]);
  return claimedDeliveries(rows);
}

// The unary + (SQLite) keeps the planner off the status index: with it, the plan walked every
// `sending` delivery and scanned the whole JSON parameter for each, which grew with the number
// in flight (56 µs per outcome at a hundred); now each outcome is one rowid lookup.
const RECORD_OUTCOMES = perDialect(
  ({ field: v, dateParam: at, rows, unindexed }) =>
    `UPDATE deliveries SET status = v.status, attempts = deliveries.attempts + 1,
       next_attempt_at = COALESCE(v.retry_at, deliveries.next_attempt_at), lease_until = NULL,
       lease_token = NULL, last_error = v.error, reply = v.reply, sent_at = v.sent_at,
       updated_at = ${at(2)}
     FROM (SELECT ${v('id', 'integer')} AS id, ${v('lease')} AS lease, ${v('status')} AS status,
             ${v('retryAt', 'bigint')} AS retry_at, ${v('error')} AS error,
             ${v('reply')} AS reply, ${v('sentAt', 'timestamptz')} AS sent_at
           FROM ${rows(1)}) AS v
     WHERE deliveries.id = v.id AND ${unindexed('deliveries.status')} IN (${OUTCOME_FROM})
       AND deliveries.lease_token = v.lease
     RETURNING deliveries.id, deliveries.send_id, deliveries.attempts`,
);

/**
 * Records finished attempts: the deliveries still `sending` under the claim each attempt ran
 * under move to their outcome status, get one attempt row each, and their sends are rolled up
 * (rollUpSends), all in three statements of which the last two are issued together. Returns
 * the rows that moved (any other outcome is refused and changes nothing) and the sends whose
 * status changed.
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
  const d = dialectOf(sql);
  const moved = await sql.all<{ id: number; send_id: number; attempts: number }>(
    RECORD_OUTCOMES[d.name],
    [
      d.json(
        outcomes.map((o) => ({
          id: o.id,
          lease: o.lease,
          status: o.status,
          retryAt: o.retryAt,
          error: o.error,
          reply: o.reply,
          sentAt: o.status === 'sent' ? d.date(o.startedAt + o.durationMs) : null,
        })),
      ),
      d.date(wallNow),
    ],
  );
  const attemptNo = new Map(moved.map((m) => [m.id, m.attempts]));
  const recorded = outcomes.filter((o) => attemptNo.has(o.id));
  const sendIds = [...new Set(moved.map((m) => m.send_id))];
  // Neither reads what the other writes: both are issued at once.
  const [, sends] = await Promise.all([
    recorded.length > 0 &&
      sql.run(INSERT_ATTEMPTS[d.name], [
        d.json(
          recorded.map((o) => ({
            id: o.id,
            attempt: attemptNo.get(o.id),
            outcome: o.outcome,
            error: o.error,
            reply: o.reply,
            durationMs: Math.max(0, Math.round(o.durationMs)),
            startedAt: d.date(o.startedAt),
          })),
        ),
        d.date(wallNow),
      ]),
    rollUpSends(sql, sendIds, wallNow),
  ]);
  return {
    moved: moved.map((m) => ({ id: m.id, sendId: m.send_id, attempts: m.attempts })),
    sends,
  };
}

const ROLL_UP_SENDS = perDialect(
  ({ dateParam: at, ids, countWhere: n }) =>
    `UPDATE sends SET status = c.next, updated_at = ${at(2)}
     FROM (SELECT send_id,
             CASE WHEN ${n(`status IN (${OPEN})`)} > 0 THEN 'pending'
                  WHEN ${n(`status = 'failed'`)} = 0 THEN
                    CASE WHEN ${n(`status = 'sent'`)} > 0 THEN 'sent'
                         WHEN ${n(`status = 'suppressed'`)} > 0 THEN 'suppressed'
                         ELSE 'pending' END
                  WHEN ${n(`status = 'sent'`)} > 0 THEN 'partial'
                  ELSE 'failed' END AS next
           FROM deliveries WHERE send_id IN ${ids(1)}
           GROUP BY send_id) AS c
     WHERE sends.id = c.send_id AND sends.status <> c.next
     RETURNING sends.id, sends.status`,
);

/**
 * Recomputes the status of the given sends from their deliveries, in one statement (after
 * locking them, on PostgreSQL: CONCURRENCY), and returns the sends whose status changed. The
 * CASE is statusFromCounts() in SQL.
 */
export async function rollUpSends(sql: SqlExecutor, sendIds: number[], wallNow: number) {
  if (sendIds.length === 0) return [];
  const d = dialectOf(sql);
  const list = d.json(sendIds);
  const lock = CONCURRENCY[d.name].lockSends;
  if (lock) await sql.all(lock, [list]);
  return sql.all<{ id: number; status: SendStatus }>(ROLL_UP_SENDS[d.name], [
    list,
    d.date(wallNow),
  ]);
}

const REQUEUE = perDialect(
  ({ param: p, dateParam: at }) =>
    `UPDATE deliveries SET status = 'queued', attempts = 0, next_attempt_at = ${p(2)},
       lease_until = NULL, lease_token = NULL, updated_at = ${at(3)}
     WHERE id = ${p(1)} AND status IN (${REQUEUE_FROM})
     RETURNING send_id`,
);

/**
 * Queues a delivery again now with a fresh attempt budget; null when its state refuses it.
 * (The console's; no claim holds the delivery: a `sending` one is refused.)
 */
export async function requeue(sql: SqlExecutor, id: number, now: number, wallNow: number) {
  const d = dialectOf(sql);
  const [row] = await sql.all<{ send_id: number }>(REQUEUE[d.name], [id, now, d.date(wallNow)]);
  return row ? { sendId: row.send_id } : null;
}

const DEFER = perDialect(
  ({ param: p, dateParam: at }) =>
    `UPDATE deliveries SET status = CASE WHEN attempts > 0 THEN 'retrying' ELSE 'queued' END,
       next_attempt_at = ${p(2)}, lease_until = NULL, lease_token = NULL, updated_at = ${at(3)},
       last_error = COALESCE(${p(5)}, last_error)
     WHERE id = ${p(1)} AND status IN (${DEFER_FROM}) AND lease_token = ${p(4)}`,
);

/**
 * Puts a claimed delivery back for later without counting an attempt (rate limit, or an
 * adapter's DeliveryError.deferred with its `reason`, kept as last_error); false when it is no
 * longer `sending` under the claim `lease`.
 */
export async function defer(
  sql: SqlExecutor,
  claim: { id: number; lease: string },
  at: number,
  wallNow: number,
  reason?: string,
) {
  const d = dialectOf(sql);
  const { changes } = await sql.run(DEFER[d.name], [
    claim.id,
    at,
    d.date(wallNow),
    claim.lease,
    reason ?? null,
  ]);
  return changes > 0;
}
