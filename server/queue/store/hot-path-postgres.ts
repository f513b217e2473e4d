/**
 * The PostgreSQL twin of hot-path.ts: the same functions with the same signatures and
 * results, as fixed parameterised SQL with `$n` parameters. Sets of rows travel as one JSON
 * parameter read with `jsonb_array_elements … WITH ORDINALITY`, as SQLite's read `json_each`.
 *
 * What is different because several processes may share the database:
 * - claims take their rows with `FOR UPDATE SKIP LOCKED`: a row another process is claiming
 *   right now is skipped rather than waited for, and once its claim commits the lease keeps
 *   it (`sending`, `lease_until` in the future) until the lease runs out;
 * - the send roll-up locks the sends it recomputes before counting their deliveries, so two
 *   processes recording outcomes of one send's deliveries at once count each other's;
 * - startup recovery takes back every claim only when no other Herald process is running
 *   (an advisory lock each holds shared); otherwise only claims whose lease ran out.
 */
import {
  OPEN_STATUSES,
  TRANSITIONS,
  sqlList,
  type DeliveryStatus,
  type SendStatus,
} from '../delivery-transitions';
import type {
  ClaimedDelivery,
  NewDelivery,
  NewSend,
  OutcomeRecord,
} from './hot-path';
import { at, idsIn, json } from '../../db/postgres/json-params';
import type { SqlExecutor } from '../../db/sql';
import {
  claimedDeliveries,
  countsFrom,
  deliveryRowsFrom,
  insertedIds,
  type ClaimedRow,
  type StateRow,
} from './hot-path-rows';

const CLAIM_DUE = sqlList(TRANSITIONS.claim.from.filter((s) => s !== 'sending'));
const OUTCOME_FROM = sqlList(TRANSITIONS.succeed.from);
const REQUEUE_FROM = sqlList(TRANSITIONS.requeue.from);
const DEFER_FROM = sqlList(TRANSITIONS.defer.from);
const RECOVER_FROM = sqlList(TRANSITIONS.recover.from);
const OPEN = sqlList(OPEN_STATUSES);

/**
 * Inserts a cycle's sends in one statement; ids come back in the order given (one statement
 * draws its ids from the sequence in the order its rows are produced, and they rise).
 */
export async function insertSends(sql: SqlExecutor, sends: NewSend[], now: number) {
  if (sends.length === 0) return [];
  const rows = await sql.all<{ id: number }>(
    `INSERT INTO sends (api, task_id, template_id, source_name, title, text, html, markdown, url,
       request, status, delivery_count, schedule_id, credential, created_at, updated_at)
     SELECT value ->> 'api', (value ->> 'taskId')::integer, (value ->> 'templateId')::integer,
       value ->> 'sourceName', value ->> 'title', value ->> 'text', value ->> 'html',
       value ->> 'markdown', value ->> 'url', (value -> 'request')::json,
       coalesce(value ->> 'status', 'pending'),
       (value ->> 'deliveryCount')::integer, (value ->> 'scheduleId')::integer,
       value ->> 'credential', $2::timestamptz, $2::timestamptz
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(value, i) ORDER BY i
     RETURNING id`,
    [json(sends), at(now)],
  );
  return insertedIds(rows);
}

/** As hot-path.ts: `queued`, or `sent` for those stored with the accept; ids in order. */
export async function insertDeliveries(sql: SqlExecutor, deliveries: NewDelivery[], now: number) {
  if (deliveries.length === 0) return [];
  const rows = await sql.all<{ id: number }>(
    `INSERT INTO deliveries (send_id, instance_id, channel_id, channel_type, content_type,
       recipient, title, content, url, mentions, preview_key, status, attempts, next_attempt_at,
       sent_at, created_at, updated_at)
     SELECT (value ->> 'sendId')::integer, (value ->> 'instanceId')::integer,
       (value ->> 'channelId')::integer, value ->> 'channelType', value ->> 'contentType',
       value ->> 'recipient', value ->> 'title', value ->> 'content', value ->> 'url',
       (value -> 'mentions')::json, value ->> 'previewKey',
       CASE WHEN value ->> 'sentAt' IS NULL THEN 'queued' ELSE 'sent' END,
       CASE WHEN value ->> 'sentAt' IS NULL THEN 0 ELSE 1 END,
       (value ->> 'nextAttemptAt')::bigint, (value ->> 'sentAt')::timestamptz,
       $2::timestamptz, $2::timestamptz
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(value, i) ORDER BY i
     RETURNING id`,
    [json(deliveries.map((d) => (d.sentAt == null ? d : { ...d, sentAt: at(d.sentAt) }))), at(now)],
  );
  return insertedIds(rows);
}

/** As hot-path.ts: the reply and attempt row of deliveries inserted `sent` with the accept. */
export async function recordStoredAttempts(
  sql: SqlExecutor,
  stored: Array<{ deliveryId: number; reply: string; startedAt: number }>,
  wallNow: number,
): Promise<void> {
  if (stored.length === 0) return;
  const param = json(stored.map((s) => ({ ...s, startedAt: at(s.startedAt) })));
  await sql.run(
    `UPDATE deliveries SET reply = v.reply
     FROM (SELECT (value ->> 'deliveryId')::integer AS id, value ->> 'reply' AS reply
           FROM jsonb_array_elements($1::jsonb)) AS v
     WHERE deliveries.id = v.id`,
    [param],
  );
  await sql.run(
    `INSERT INTO delivery_attempts (delivery_id, attempt, outcome, error, reply, duration_ms,
       started_at, created_at)
     SELECT (value ->> 'deliveryId')::integer, 1, 'sent', NULL, value ->> 'reply', 0,
       (value ->> 'startedAt')::timestamptz, $2::timestamptz
     FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(value, i) ORDER BY i`,
    [param, at(wallNow)],
  );
}

/**
 * Claims up to `limit` due deliveries: queued or retrying ones whose time has come, and
 * `sending` ones whose lease ran out (their process died), oldest first. Rows that another
 * process is claiming in a transaction not yet committed are skipped, not waited for.
 */
export async function claimDue(
  sql: SqlExecutor,
  opts: { now: number; leaseUntil: number; limit: number; exclude: number[]; wallNow: number },
): Promise<ClaimedDelivery[]> {
  const rows = await sql.all<ClaimedRow>(
    `WITH due AS (
       SELECT id FROM deliveries
       WHERE ((status IN (${CLAIM_DUE}) AND next_attempt_at <= $1)
           OR (status = 'sending' AND lease_until < $1))
         AND id NOT IN ${idsIn('$4')}
       ORDER BY next_attempt_at, id LIMIT $3
       FOR UPDATE SKIP LOCKED)
     UPDATE deliveries d SET status = 'sending', lease_until = $2, updated_at = $5::timestamptz
     FROM due WHERE d.id = due.id
     RETURNING d.id, d.send_id, d.channel_id, d.title, d.content, d.content_type, d.url,
       d.recipient, d.mentions::text AS mentions, d.attempts, d.next_attempt_at`,
    [opts.now, opts.leaseUntil, opts.limit, json(opts.exclude), at(opts.wallNow)],
  );
  return claimedDeliveries(rows);
}

/** As hot-path.ts: deliveries still `sending` move to their outcome, with attempt rows. */
export async function recordOutcomes(
  sql: SqlExecutor,
  outcomes: OutcomeRecord[],
  wallNow: number,
): Promise<{
  moved: Array<{ id: number; sendId: number; attempts: number }>;
  sends: Array<{ id: number; status: SendStatus }>;
}> {
  if (outcomes.length === 0) return { moved: [], sends: [] };
  const moved = await sql.all<{ id: number; send_id: number; attempts: number }>(
    `UPDATE deliveries SET status = v.status, attempts = deliveries.attempts + 1,
       next_attempt_at = COALESCE(v.retry_at, deliveries.next_attempt_at), lease_until = NULL,
       last_error = v.error, reply = v.reply, sent_at = v.sent_at, updated_at = $2::timestamptz
     FROM (SELECT (value ->> 'id')::integer AS id, value ->> 'status' AS status,
             (value ->> 'retryAt')::bigint AS retry_at, value ->> 'error' AS error,
             value ->> 'reply' AS reply, (value ->> 'sentAt')::timestamptz AS sent_at
           FROM jsonb_array_elements($1::jsonb)) AS v
     WHERE deliveries.id = v.id AND deliveries.status IN (${OUTCOME_FROM})
     RETURNING deliveries.id, deliveries.send_id, deliveries.attempts`,
    [
      json(
        outcomes.map((o) => ({
          id: o.id,
          status: o.status,
          retryAt: o.retryAt,
          error: o.error,
          reply: o.reply,
          sentAt: o.status === 'sent' ? at(o.startedAt + o.durationMs) : null,
        })),
      ),
      at(wallNow),
    ],
  );
  const attemptNo = new Map(moved.map((m) => [m.id, m.attempts]));
  const recorded = outcomes.filter((o) => attemptNo.has(o.id));
  const sendIds = [...new Set(moved.map((m) => m.send_id))];
  if (recorded.length > 0) {
    await sql.run(
      `INSERT INTO delivery_attempts (delivery_id, attempt, outcome, error, reply, duration_ms,
         started_at, created_at)
       SELECT (value ->> 'id')::integer, (value ->> 'attempt')::integer, value ->> 'outcome',
         value ->> 'error', value ->> 'reply', (value ->> 'durationMs')::integer,
         (value ->> 'startedAt')::timestamptz, $2::timestamptz
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(value, i) ORDER BY i`,
      [
        json(
          recorded.map((o) => ({
            id: o.id,
            attempt: attemptNo.get(o.id),
            outcome: o.outcome,
            error: o.error,
            reply: o.reply,
            durationMs: Math.max(0, Math.round(o.durationMs)),
            startedAt: at(o.startedAt),
          })),
        ),
        at(wallNow),
      ],
    );
  }
  const sends = await rollUpSends(sql, sendIds, wallNow);
  return {
    moved: moved.map((m) => ({ id: m.id, sendId: m.send_id, attempts: m.attempts })),
    sends,
  };
}

/**
 * Recomputes the status of the given sends from their deliveries and returns the sends whose
 * status changed. The sends are locked first, in id order: a process that records another
 * delivery of the same send waits here until this one commits, and then (a new statement, a
 * new snapshot under READ COMMITTED) counts this one's outcome too. Without the lock two
 * processes could each count the other's delivery as still open and leave the send pending.
 */
export async function rollUpSends(sql: SqlExecutor, sendIds: number[], wallNow: number) {
  if (sendIds.length === 0) return [];
  const list = json(sendIds);
  await sql.all(`SELECT id FROM sends WHERE id IN ${idsIn('$1')} ORDER BY id FOR UPDATE`, [list]);
  return sql.all<{ id: number; status: SendStatus }>(
    `UPDATE sends SET status = c.next, updated_at = $2::timestamptz
     FROM (SELECT send_id,
             CASE WHEN count(*) FILTER (WHERE status IN (${OPEN})) > 0 THEN 'pending'
                  WHEN count(*) FILTER (WHERE status = 'failed') = 0 THEN
                    CASE WHEN count(*) FILTER (WHERE status = 'sent') > 0 THEN 'sent'
                         ELSE 'pending' END
                  WHEN count(*) FILTER (WHERE status = 'sent') > 0 THEN 'partial'
                  ELSE 'failed' END AS next
           FROM deliveries WHERE send_id IN ${idsIn('$1')}
           GROUP BY send_id) AS c
     WHERE sends.id = c.send_id AND sends.status <> c.next
     RETURNING sends.id, sends.status`,
    [list, at(wallNow)],
  );
}

/** Queues a delivery again now with a fresh attempt budget; null when its state refuses it. */
export async function requeue(sql: SqlExecutor, id: number, now: number, wallNow: number) {
  const [row] = await sql.all<{ send_id: number }>(
    `UPDATE deliveries SET status = 'queued', attempts = 0, next_attempt_at = $2,
       lease_until = NULL, updated_at = $3::timestamptz
     WHERE id = $1 AND status IN (${REQUEUE_FROM})
     RETURNING send_id`,
    [id, now, at(wallNow)],
  );
  return row ? { sendId: row.send_id } : null;
}

/** Puts a claimed delivery back for later without counting an attempt (rate limit). */
export async function defer(sql: SqlExecutor, id: number, atMs: number, wallNow: number) {
  const { changes } = await sql.run(
    `UPDATE deliveries SET status = CASE WHEN attempts > 0 THEN 'retrying' ELSE 'queued' END,
       next_attempt_at = $2, lease_until = NULL, updated_at = $3::timestamptz
     WHERE id = $1 AND status IN (${DEFER_FROM})`,
    [id, atMs, at(wallNow)],
  );
  return changes > 0;
}

/**
 * Every Herald process on the database holds this advisory lock shared, on its Writer's
 * connection, from its startup recovery on; PostgreSQL releases it when the connection ends,
 * a SIGKILL included. (Two int4 keys: 'HRLD', 1.)
 */
const PROCESSES_LOCK = '1213352004, 1';

/**
 * At startup: claims left behind go back to waiting. Which ones depends on who else runs:
 * - no other Herald process holds the processes lock (it is free to take exclusively): every
 *   `sending` claim is a dead process's, and all go back at once, as on SQLite;
 * - another process runs: only claims whose lease ran out, since one that holds may be that
 *   process's delivery in flight; a dead process's claims are taken over when their lease
 *   ends, by claimDue itself.
 * Either way this process then holds the lock shared for as long as its connection lives.
 */
export async function recoverClaims(sql: SqlExecutor, wallNow: number) {
  const [{ alone }] = await sql.all<{ alone: boolean }>(
    `SELECT pg_try_advisory_lock(${PROCESSES_LOCK}) AS alone`,
  );
  try {
    const { changes } = await sql.run(
      `UPDATE deliveries SET status = CASE WHEN attempts > 0 THEN 'retrying' ELSE 'queued' END,
         lease_until = NULL, updated_at = $1::timestamptz
       WHERE status IN (${RECOVER_FROM}) AND ($3 = 1 OR lease_until IS NULL OR lease_until < $2)`,
      [at(wallNow), wallNow, alone ? 1 : 0],
    );
    return changes;
  } finally {
    await sql.all(`SELECT pg_advisory_lock_shared(${PROCESSES_LOCK})`);
    if (alone) await sql.all(`SELECT pg_advisory_unlock(${PROCESSES_LOCK})`);
  }
}

/** The current state of some deliveries (for refusals and for V1 answers after the wait). */
export async function deliveryRows(sql: SqlExecutor, deliveryIds: number[]) {
  if (deliveryIds.length === 0) return [];
  const rows = await sql.all<StateRow>(
    `SELECT id, send_id, status, attempts, last_error, reply FROM deliveries
     WHERE id IN ${idsIn('$1')}`,
    [json(deliveryIds)],
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
     WHERE send_id IN ${idsIn('$1')} GROUP BY send_id, status`,
    [json(sendIds)],
  );
  return countsFrom(rows);
}
