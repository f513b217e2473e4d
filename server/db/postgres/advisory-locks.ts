/**
 * Herald's PostgreSQL advisory locks, each named by two int4 keys. The first key is the same
 * for all of them, so that another application's advisory locks on the same database can only
 * collide with Herald's if they chose the same number.
 *
 * That number, 1213352004, is the bytes 'HRHD' read as a big-endian int4. It was meant to be
 * 'HRLD' (1213353028), and the comments said so, but it stays: a process of an earlier version
 * on the same database holds and waits for the locks under this number.
 */
const HERALD = 1213352004;

/** Each lock's keys, as written in SQL: `pg_advisory_lock(${ADVISORY_LOCKS.processes})`. */
export const ADVISORY_LOCKS = {
  /** Held shared by every Herald process on its Writer's connection (queue/store/hot-path.ts). */
  processes: `${HERALD}, 1`,
  /** Held shared by every INSERT into hosted_messages until it commits (hosted-insert-lock.ts). */
  hostedInserts: `${HERALD}, 2`,
} as const;
