/**
 * The hot path's reads, on SQLite and PostgreSQL alike (fragments of server/db/sql-dialect.ts,
 * as in hot-path.ts): a delivery's state for refusals and V1 answers, the next due time, and
 * the counts of a send's deliveries. DeliveryState runs them on the read connection
 * (committed state only), and inside a write cycle where it must see the cycle's own writes.
 */
import { dialectOf, perDialect } from '../../db/sql-dialect';
import type { SqlExecutor } from '../../db/sql';
import { TRANSITIONS, sqlList, type DeliveryStatus } from '../delivery-transitions';
import { countsFrom, deliveryRowsFrom, type StateRow } from './hot-path-rows';

const CLAIM_DUE = sqlList(TRANSITIONS.claim.from.filter((s) => s !== 'sending'));

const DELIVERY_ROWS = perDialect(
  ({ ids }) =>
    `SELECT id, send_id, status, attempts, last_error, reply, lease_token FROM deliveries
     WHERE id IN ${ids(1)}`,
);

/** The current state of some deliveries (for refusals and for V1 answers after the wait). */
export async function deliveryRows(sql: SqlExecutor, deliveryIds: number[]) {
  if (deliveryIds.length === 0) return [];
  const d = dialectOf(sql);
  const rows = await sql.all<StateRow>(DELIVERY_ROWS[d.name], [d.json(deliveryIds)]);
  return deliveryRowsFrom(rows);
}

const NEXT_DUE_AT = `SELECT MIN(next_attempt_at) AS next FROM deliveries
  WHERE status IN (${CLAIM_DUE})`;

/** When the earliest waiting delivery is due (epoch ms), or null when none waits. */
export async function nextDueAt(sql: SqlExecutor): Promise<number | null> {
  const [row] = await sql.all<{ next: number | null }>(NEXT_DUE_AT);
  return row?.next === null || row?.next === undefined ? null : Number(row.next);
}

const COUNTS_BY_SEND = perDialect(
  ({ ids }) =>
    `SELECT send_id, status, COUNT(*) AS n FROM deliveries
     WHERE send_id IN ${ids(1)} GROUP BY send_id, status`,
);

/** How many deliveries of each send are in each status, in one grouped query. */
export async function countsBySend(sql: SqlExecutor, sendIds: number[]) {
  if (sendIds.length === 0) return countsFrom([]);
  const d = dialectOf(sql);
  const rows = await sql.all<{ send_id: number; status: DeliveryStatus; n: number }>(
    COUNTS_BY_SEND[d.name],
    [d.json(sendIds)],
  );
  return countsFrom(rows);
}
