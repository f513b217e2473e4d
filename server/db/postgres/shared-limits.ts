/**
 * The limits several Herald processes on one PostgreSQL database must keep together: a robot's
 * pacing (20 a minute for all processes, not for each), the send API's per-task budget, the
 * preview route's per-address budget, and the sign-in throttle. Each is a row that one atomic
 * statement (or one short transaction) reads and changes, so two processes taking the last slot
 * at the same moment are serialised by the row lock and only one gets it. The tables come from
 * the migration 2026-11-23-1600-shared-limits.
 */
import type { Pool } from 'pg';

import {
  afterFailure,
  waitOf,
  type KeyState,
  type SignInThrottle,
  type ThrottleKey,
} from '../../domain/sign-in-throttle';
import type { RateLimiter } from '../../features/sending/rate-limiter';
import type { RateLimit } from '../../channels/channel-adapter';
import type { Clock } from '../../lib/clock';
import type { ChannelPacer } from '../../queue/pacer';

type Queryable = Pick<Pool, 'query'>;

/**
 * Takes a slot of a sliding window and returns 0, or returns the wait in ms until one frees
 * (nothing taken). The window is kept as buckets of `bucketMs` (1 ms for pacing: exact; 1 s
 * for a per-minute budget of up to 100,000: at most 61 buckets). A bucket counts while any
 * millisecond of it is inside the window, so a coarse bucket can refuse a little early, never
 * late: the limit is never exceeded.
 *
 * One statement: `ON CONFLICT DO UPDATE` locks the key's row and evaluates its WHERE against
 * the latest committed version, so concurrent takers of one key queue on the row and each sees
 * the others' hits.
 */
export async function takeSlot(
  db: Queryable,
  key: string,
  window: { max: number; perMs: number; bucketMs: number },
  now: number,
): Promise<number> {
  const { max, perMs, bucketMs } = window;
  const bucket = now - (now % bucketMs);
  /** Buckets starting after this still have a millisecond inside (now - perMs, now]. */
  const after = now - perMs - bucketMs + 1;
  const taken = await db.query({
    name: 'herald_take_slot',
    text: `INSERT INTO rate_windows AS w (key, buckets, counts) VALUES ($1, ARRAY[$2::bigint], ARRAY[1])
       ON CONFLICT (key) DO UPDATE SET (buckets, counts) = (
         SELECT array_agg(k.b ORDER BY k.b), array_agg(k.c ORDER BY k.b) FROM (
           SELECT u.b, u.c + CASE WHEN u.b = $2 THEN 1 ELSE 0 END AS c
             FROM unnest(w.buckets, w.counts) AS u(b, c) WHERE u.b > $3
           UNION ALL
           SELECT $2::bigint, 1 WHERE $2 <> ALL (w.buckets)) AS k)
       WHERE (SELECT coalesce(sum(u.c), 0) FROM unnest(w.buckets, w.counts) AS u(b, c)
              WHERE u.b > $3) < $4
       RETURNING 1`,
    values: [key, bucket, after, max],
  });
  if ((taken.rowCount ?? 0) > 0) return 0;
  // Refused: the window is full until its oldest bucket leaves (read after the fact; a wait
  // that is a little off only moves the next look).
  const { rows } = await db.query<{ oldest: number | null }>({
    name: 'herald_window_oldest',
    text: `SELECT min(u.b) AS oldest FROM rate_windows, unnest(buckets) AS u(b)
       WHERE key = $1 AND u.b > $2`,
    values: [key, after],
  });
  const oldest = rows[0]?.oldest;
  if (oldest === null || oldest === undefined) return 1;
  return Math.max(1, Number(oldest) + bucketMs - 1 + perMs - now);
}

/** Robots' pacing for every process: exact to the millisecond, as the in-memory Pacer. */
export class PostgresPacer implements ChannelPacer {
  constructor(private readonly db: Queryable) {}

  reserve(limit: RateLimit, now: number): Promise<number> {
    return takeSlot(
      this.db,
      `pace:${limit.key}`,
      { max: limit.max, perMs: limit.perMs, bucketMs: 1 },
      now,
    );
  }
}

/** A per-minute budget counted by every process (send API per task, previews per address). */
export class PostgresRateLimiter implements RateLimiter {
  /** `scope` keeps the send API's and the preview route's keys apart in the one table. */
  constructor(
    private readonly db: Queryable,
    private readonly scope: string,
  ) {}

  async allow(key: string, perMinute: number, now: number): Promise<boolean> {
    if (perMinute <= 0) return true;
    const wait = await takeSlot(
      this.db,
      `${this.scope}:${key}`,
      { max: perMinute, perMs: 60_000, bucketMs: 1_000 },
      now,
    );
    return wait === 0;
  }
}

interface FailureRow {
  key: string;
  failures: number;
  last_failure_at: number;
  not_before: number;
}

/**
 * The sign-in throttle in the database, with the rules of the in-memory one (login-throttle.ts):
 * a try locks its keys' rows (in key order, so two tries never deadlock), reads their waits,
 * and counts itself as a failure only when it may go ahead, all in one transaction.
 */
export class PostgresLoginThrottle implements SignInThrottle {
  constructor(
    private readonly pool: Pool,
    private readonly clock: Clock,
  ) {}

  async begin(keys: ThrottleKey[]): Promise<number> {
    const now = this.clock.now();
    const sorted = [...new Map(keys.map((k) => [k.key, k])).values()].sort((a, b) =>
      a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
    );
    const names = sorted.map((k) => k.key);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO login_failures (key, failures, last_failure_at, not_before)
         SELECT k, 0, $2, 0 FROM unnest($1::text[]) AS k ORDER BY k ON CONFLICT (key) DO NOTHING`,
        [names, now],
      );
      const { rows } = await client.query<FailureRow>(
        `SELECT key, failures, last_failure_at, not_before FROM login_failures
         WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`,
        [names],
      );
      const stored = new Map(
        rows.map((r): [string, KeyState] => [
          r.key,
          {
            failures: Number(r.failures),
            lastFailureAt: Number(r.last_failure_at),
            notBefore: Number(r.not_before),
          },
        ]),
      );
      const current = (k: ThrottleKey): KeyState | undefined => {
        const record = stored.get(k.key);
        // A fresh row (no failure yet) or one old enough to forget starts from nothing.
        if (!record || record.failures === 0 || waitOf(record, k.policy, now) === null) {
          return undefined;
        }
        return record;
      };
      const wait = Math.max(
        0,
        ...sorted.map((k) => {
          const record = current(k);
          return record ? (waitOf(record, k.policy, now) ?? 0) : 0;
        }),
      );
      if (wait > 0) {
        await client.query('COMMIT');
        return wait;
      }
      const next = sorted.map((k) => ({ key: k.key, ...afterFailure(current(k), k.policy, now) }));
      await client.query(
        `UPDATE login_failures AS f SET failures = v.failures, last_failure_at = v.last_failure_at,
           not_before = v.not_before
         FROM (SELECT * FROM jsonb_to_recordset($1::jsonb)
               AS x(key text, failures integer, last_failure_at bigint, not_before bigint)) AS v
         WHERE f.key = v.key`,
        [
          JSON.stringify(
            next.map((n) => ({
              key: n.key,
              failures: n.failures,
              last_failure_at: n.lastFailureAt,
              not_before: n.notBefore,
            })),
          ),
        ],
      );
      await client.query('COMMIT');
      return 0;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async succeed(keys: ThrottleKey[]): Promise<void> {
    await this.pool.query('DELETE FROM login_failures WHERE key = ANY($1::text[])', [
      keys.map((k) => k.key),
    ]);
  }
}

/**
 * Housekeeping: windows nobody took from for an hour, and failures old enough to be forgotten
 * (every policy forgets within an hour), leave the tables.
 */
export async function pruneSharedLimits(db: Queryable, now: number): Promise<void> {
  const hourAgo = now - 60 * 60_000;
  await db.query(
    'DELETE FROM rate_windows WHERE buckets[cardinality(buckets)] < $1 OR cardinality(buckets) = 0',
    [hourAgo],
  );
  await db.query('DELETE FROM login_failures WHERE last_failure_at < $1 AND not_before <= $2', [
    hourAgo,
    now,
  ]);
}
