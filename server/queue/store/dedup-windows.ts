/**
 * The dedup windows of sends that carry a `dedupKey` (issue 24, docs/send-api.md "Dedup for
 * alert storms"): one row per task or template and key, in the table of the migration
 * 2026-11-26-1000. Each statement is the same on SQLite and PostgreSQL.
 */
import { dialectOf, perDialect } from '../../db/sql-dialect';
import type { SqlExecutor } from '../../db/sql';

/** Which window a send falls in: its task or template, its key, and how long a window it opens. */
export interface DedupGate {
  /** `task:<id>` or `template:<id>`: the same key on two tasks is two windows. */
  scope: string;
  key: string;
  windowMs: number;
}

/** What taking the gate came to. */
export type GateTaken =
  /** The window was closed (or never opened): this send opens it and is delivered. */
  | { opened: true; repeats: number }
  /** The window is open: this send is suppressed, counted on the send that opened it. */
  | { opened: false; firstSendId: number };

/*
 * One statement takes the key's row: `ON CONFLICT DO UPDATE` locks it (PostgreSQL) or runs
 * inside the writer's `BEGIN IMMEDIATE` (SQLite), and its SET reads the row as it was, so each
 * of two processes posting the same key at once either opens the window or counts on it, never
 * both. A window still open keeps its send and counts one more; a closed one is opened again,
 * its count kept as `previous_suppressed` (the new first send's repeats). first_send_id is null
 * until the opening send's row exists, later in the same transaction (setFirstSend).
 */
const TAKE = perDialect(
  ({ param: p }) =>
    `INSERT INTO dedup_windows AS w (scope, dedup_key, first_send_id, window_until, suppressed,
       previous_suppressed, updated_at)
     VALUES (${p(1)}, ${p(2)}, NULL, ${p(3)}, 0, 0, ${p(4)})
     ON CONFLICT (scope, dedup_key) DO UPDATE SET
       first_send_id = CASE WHEN w.window_until > ${p(4)} THEN w.first_send_id ELSE NULL END,
       suppressed = CASE WHEN w.window_until > ${p(4)} THEN w.suppressed + 1 ELSE 0 END,
       previous_suppressed = CASE WHEN w.window_until > ${p(4)} THEN w.previous_suppressed
         ELSE w.suppressed END,
       window_until = CASE WHEN w.window_until > ${p(4)} THEN w.window_until ELSE ${p(3)} END,
       updated_at = ${p(4)}
     RETURNING first_send_id, previous_suppressed`,
);

/** Takes the gate at `now` (epoch ms, the delivery clock); call inside a write transaction. */
export async function takeGate(sql: SqlExecutor, gate: DedupGate, now: number): Promise<GateTaken> {
  const d = dialectOf(sql);
  const [row] = await sql.all<{ first_send_id: number | null; previous_suppressed: number }>(
    TAKE[d.name],
    [gate.scope, gate.key, now + gate.windowMs, now],
  );
  if (row.first_send_id === null) {
    return { opened: true, repeats: Number(row.previous_suppressed) };
  }
  return { opened: false, firstSendId: Number(row.first_send_id) };
}

const SET_FIRST = perDialect(
  ({ param: p }) =>
    `UPDATE dedup_windows SET first_send_id = ${p(3)} WHERE scope = ${p(1)} AND dedup_key = ${p(2)}`,
);

/** Records the send that opened the window (the one takeGate answered `opened`). */
export async function setFirstSend(
  sql: SqlExecutor,
  gate: DedupGate,
  sendId: number,
): Promise<void> {
  await sql.run(SET_FIRST[dialectOf(sql).name], [gate.scope, gate.key, sendId]);
}

const COUNT_ON_FIRST = perDialect(
  ({ param: p }) => `UPDATE sends SET suppressed_count = suppressed_count + 1 WHERE id = ${p(1)}`,
);

/** One more suppressed send, counted on the send whose window it fell in (the logs show it). */
export async function countSuppressed(sql: SqlExecutor, firstSendId: number): Promise<void> {
  await sql.run(COUNT_ON_FIRST[dialectOf(sql).name], [firstSendId]);
}
