import type { SqlExecutor } from '../../db/sql';

/** Deliveries not finished yet, by status. */
export interface QueueStats {
  queued: number;
  retrying: number;
  sending: number;
  /** The earliest `next_attempt_at` of a waiting (queued or retrying) delivery, or null. */
  earliestWaitingAt: number | null;
}

/**
 * Read at scrape time, so it must stay cheap however long the history: every part is a count
 * or a min over one status of the (status, next_attempt_at) index, never a scan of finished
 * deliveries. The earliest waiting delivery, if its time has come, is the oldest due one;
 * standard SQL without parameters, so it reads the same on any database Herald runs on.
 */
const QUEUE_STATS_SQL = `SELECT
  (SELECT count(*) FROM deliveries WHERE status = 'queued') AS queued,
  (SELECT count(*) FROM deliveries WHERE status = 'retrying') AS retrying,
  (SELECT count(*) FROM deliveries WHERE status = 'sending') AS sending,
  (SELECT min(next_attempt_at) FROM deliveries WHERE status = 'queued') AS queued_at,
  (SELECT min(next_attempt_at) FROM deliveries WHERE status = 'retrying') AS retrying_at`;

export async function readQueueStats(read: SqlExecutor): Promise<QueueStats> {
  const [row] = await read.all<{
    queued: number;
    retrying: number;
    sending: number;
    queued_at: number | null;
    retrying_at: number | null;
  }>(QUEUE_STATS_SQL);
  const times = [row.queued_at, row.retrying_at].filter((t): t is number => t !== null).map(Number);
  return {
    queued: Number(row.queued),
    retrying: Number(row.retrying),
    sending: Number(row.sending),
    earliestWaitingAt: times.length > 0 ? Math.min(...times) : null,
  };
}

/** Seconds the oldest due delivery has waited past its time; 0 when none is due. */
export function oldestDueAgeSeconds(stats: QueueStats, now: number): number {
  if (stats.earliestWaitingAt === null) return 0;
  return Math.max(0, now - stats.earliestWaitingAt) / 1000;
}
