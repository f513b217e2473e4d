import type { QueryInterface } from 'sequelize';

/**
 * What several Herald processes on one PostgreSQL database must count together
 * (server/db/postgres/shared-limits.ts):
 *
 * - `rate_windows`: one row per rate-limit key (a robot's pacing, a task's send budget, an
 *   address's preview budget), a sliding window kept as parallel arrays of bucket starts and
 *   hit counts, taken with one atomic `INSERT … ON CONFLICT DO UPDATE … WHERE`;
 * - `login_failures`: the sign-in throttle's failures per username and per address.
 *
 * On SQLite there is one process, whose limits stay in its memory: nothing to create.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (qi.sequelize.getDialect() !== 'postgres') return;
  await qi.sequelize.query(`
    CREATE TABLE rate_windows (
      key text PRIMARY KEY,
      buckets bigint[] NOT NULL,
      counts integer[] NOT NULL
    );
    CREATE TABLE login_failures (
      key text PRIMARY KEY,
      failures integer NOT NULL,
      last_failure_at bigint NOT NULL,
      not_before bigint NOT NULL
    );
  `);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  if (qi.sequelize.getDialect() !== 'postgres') return;
  await qi.sequelize.query(
    'DROP TABLE IF EXISTS login_failures; DROP TABLE IF EXISTS rate_windows',
  );
}
