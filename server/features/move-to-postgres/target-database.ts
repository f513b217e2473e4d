import pg, { type Client } from 'pg';

import { redactDatabaseUrl } from '../../config/database-url';
import { migrate } from '../../db/migrate';
import { openPostgresDatabase } from '../../db/postgres/open-postgres';
import { MoveRefused, quoteIdent } from './move-refused';

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Tables kept from other rows, by triggers or by the migrations (history_counters, the daily
 * roll-ups, the backfill's progress), the migrations' own bookkeeping, and the passing state
 * that processes on PostgreSQL share (rate windows, recent sign-in failures: migration
 * 2026-11-23-1600, PostgreSQL only): the target builds its own, they are never copied.
 */
export const DERIVED_TABLES = new Set([
  'schema_migrations',
  'history_counters',
  'search_backfill',
  'send_day_rollup',
  'delivery_day_rollup',
  'rate_windows',
  'login_failures',
]);

export function checkPostgresUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MoveRefused(
      `"${url}" is not a URL: give one like postgres://user:password@host:5432/herald`,
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new MoveRefused(`${redactDatabaseUrl(url)} is not a postgres:// (or postgresql://) URL`);
  }
  if (parsed.pathname.replace(/^\//, '') === '') {
    throw new MoveRefused(`${redactDatabaseUrl(url)} names no database (…/herald at the end)`);
  }
}

/** A plain connection for the copy; times in UTC as Herald's own connections have them. */
export async function connectTarget(url: string): Promise<Client> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    options: '-c TimeZone=UTC -c client_min_messages=warning',
  });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    await client.end().catch(() => undefined);
    const reason = err instanceof Error && err.message ? err.message : String(err);
    throw new MoveRefused(`cannot reach PostgreSQL at ${redactDatabaseUrl(url)}: ${reason}`);
  }
  return client;
}

export async function tablesOf(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1',
  );
  return rows.map((r) => r.name);
}

/**
 * Empty: no tables at all, or only Herald's schema with no rows (what a move that failed
 * half-way leaves: the migrations ran, the copy was rolled back). Anything else may be
 * someone's data, or a Herald already running on it.
 */
export async function refuseUnlessEmpty(client: Client, url: string): Promise<void> {
  const tables = await tablesOf(client);
  if (tables.length === 0) return;
  const where = redactDatabaseUrl(url);
  if (!tables.includes('schema_migrations')) {
    throw new MoveRefused(
      `${where} is not empty (it holds ${listed(tables)}): give an empty database, e.g. createdb herald`,
    );
  }
  const withRows: string[] = [];
  for (const table of tables.filter((t) => !DERIVED_TABLES.has(t))) {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM ${quoteIdent(table)} LIMIT 1) x`,
    );
    if (Number(rows[0].n) > 0) withRows.push(table);
  }
  if (withRows.length > 0) {
    throw new MoveRefused(
      `${where} already holds Herald data (rows in ${listed(withRows)}): move into an empty database; ` +
        'nothing was changed',
    );
  }
}

const listed = (names: string[]) =>
  names.length <= 5
    ? names.join(', ')
    : `${names.slice(0, 5).join(', ')} and ${names.length - 5} more`;

/**
 * The schema, built the way Herald builds it when it opens PostgreSQL. The migrations work on
 * the query interface alone, so the models (process-wide classes) are left bound to whatever
 * else may run in this process.
 */
export async function migrateTarget(url: string): Promise<string[]> {
  const db = await openPostgresDatabase(url);
  try {
    return await migrate(db.sequelize);
  } finally {
    await db.close();
  }
}
