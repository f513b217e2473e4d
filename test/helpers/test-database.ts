import { randomBytes } from 'node:crypto';

import pg, { type Client } from 'pg';

/**
 * PostgreSQL databases for tests. `HERALD_TEST_DATABASE=postgres` runs every test Herald on a
 * fresh database of the server at HERALD_TEST_POSTGRES_URL (default: the local one, trust auth),
 * created for it and dropped afterwards; unset, tests use SQLite files as always.
 */
export const POSTGRES_ADMIN_URL =
  process.env.HERALD_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const onPostgres = (): boolean => process.env.HERALD_TEST_DATABASE === 'postgres';

/** The URL of another database on the same server as `url`. */
function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database; its name is unique per call. */
export async function createTestDatabase(): Promise<{ name: string; url: string }> {
  const name = `herald_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return { name, url: withDatabase(POSTGRES_ADMIN_URL, name) };
}

/** Drops a test database, ending whatever connections a killed process left on it. */
export async function dropTestDatabase(name: string): Promise<void> {
  if (!/^herald_test_\w+$/.test(name)) throw new Error(`not a test database: ${name}`);
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * Databases of test Heralds closed without removing their data (a restart may follow on the
 * same data folder, and so on the same database), by data folder. Dropped after the file.
 */
export const keptDatabases = new Map<string, { name: string; url: string }>();

export async function dropKeptDatabases(): Promise<void> {
  const kept = [...keptDatabases.values()];
  keptDatabases.clear();
  for (const db of kept) await dropTestDatabase(db.name);
}
