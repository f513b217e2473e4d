/**
 * The hot path's recovery (hot-path.ts holds the rest of its writes): claims left behind by a
 * process that died, at startup, and by a delivery thread that died, by their lease tag.
 */
import { TRANSITIONS, sqlList } from '../delivery-transitions';
import { perDialect, dialectOf } from '../../db/sql-dialect';
import type { SqlExecutor } from '../../db/sql';
import { CONCURRENCY } from './hot-path';

const RECOVER_FROM = sqlList(TRANSITIONS.recover.from);

/**
 * Claims put back to waiting, with the attempts they had, where `which` (over params 2 and 3;
 * 1 is updated_at) says which `sending` rows.
 */
const putBack = (which: (p: (n: number) => string) => string) =>
  perDialect(
    ({ param: p, dateParam: at }) =>
      `UPDATE deliveries SET status = CASE WHEN attempts > 0 THEN 'retrying' ELSE 'queued' END,
         lease_until = NULL, lease_token = NULL, updated_at = ${at(1)}
       WHERE status IN (${RECOVER_FROM}) AND ${which(p)}`,
  );

/** Every claim (param 3 = 1, alone), or those whose lease ran out before param 2. */
const RECOVER = putBack((p) => `(${p(3)} = 1 OR lease_until IS NULL OR lease_until < ${p(2)})`);

/** The claims whose lease token starts with param 2. */
const RECOVER_LEASES = putBack((p) => `substr(lease_token, 1, length(${p(2)})) = ${p(2)}`);

/**
 * The claims of one DeliveryState that ended without recording them (the delivery thread's,
 * when the thread died) go back to waiting now instead of when their leases run out. `tag`
 * is that DeliveryState's lease tag; its tokens are `tag.n`. Returns how many went back.
 */
export async function recoverLeases(sql: SqlExecutor, tag: string, wallNow: number) {
  const d = dialectOf(sql);
  const { changes } = await sql.run(RECOVER_LEASES[d.name], [d.date(wallNow), `${tag}.`]);
  return changes;
}

/**
 * At startup: claims left behind go back to waiting. Which ones depends on who else runs:
 * - no other Herald process runs (always on SQLite, whose data folder lock allows one; on
 *   PostgreSQL when the processes lock is free to take exclusively): every `sending` claim is
 *   a dead process's, and all go back at once;
 * - another process runs: only claims whose lease ran out, since one that holds may be that
 *   process's delivery in flight; a dead process's claims are taken over when their lease
 *   ends, by claimDue itself.
 * On PostgreSQL this process then holds the lock shared for as long as its connection lives.
 */
export async function recoverClaims(sql: SqlExecutor, wallNow: number) {
  const d = dialectOf(sql);
  const processes = CONCURRENCY[d.name].processes;
  const alone = processes ? (await sql.all<{ alone: boolean }>(processes.alone))[0].alone : true;
  try {
    const { changes } = await sql.run(RECOVER[d.name], [d.date(wallNow), wallNow, alone ? 1 : 0]);
    return changes;
  } finally {
    if (processes) {
      await sql.all(processes.join);
      if (alone) await sql.all(processes.release);
    }
  }
}
