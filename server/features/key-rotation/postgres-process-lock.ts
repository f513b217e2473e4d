import pg from 'pg';

import { ADVISORY_LOCKS } from '../../db/postgres/advisory-locks';

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Every running Herald process holds Herald's process lock shared (queue/store/hot-path.ts),
 * whatever data folder it runs from. Taking it exclusively succeeds only when none runs, and
 * holding it keeps one that starts meanwhile waiting at its startup recovery until the rotation
 * is over. Null when a Herald holds it. On a connection of its own: the lock lives as long as
 * that session.
 */
export async function takePostgresProcessLock(url: string): Promise<HeldLock | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ alone: boolean }>(
      `SELECT pg_try_advisory_lock(${ADVISORY_LOCKS.processes}) AS alone`,
    );
    if (rows[0]?.alone !== true) {
      await client.end();
      return null;
    }
  } catch (err) {
    await client.end();
    throw err;
  }
  return {
    async release() {
      // Ending the session releases the lock, even if the unlock were to fail.
      await client.end();
    },
  };
}
