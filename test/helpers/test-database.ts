import { randomBytes } from 'node:crypto';

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import pg, { type Client } from 'pg';

import { openDatabase, type Database } from '../../server/db/database';
import { openPostgresDatabase } from '../../server/db/postgres/open-postgres';

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

/**
 * Opens the database of a data folder the way Herald would for that folder, to build "a
 * folder an older version left" in tests: the SQLite file in it, or on PostgreSQL the
 * folder's test database (created now, used by the Herald started on the folder later).
 */
export async function openFolderDatabase(dataDir: string): Promise<Database> {
  if (!onPostgres()) return openDatabase(join(dataDir, 'herald.db'));
  const database = keptDatabases.get(dataDir) ?? (await createTestDatabase());
  keptDatabases.set(dataDir, database);
  const db = await openPostgresDatabase(database.url);
  return {
    ...db,
    async close() {
      // Rows a test inserted with explicit ids leave the id sequences behind them.
      const [tables] = await db.sequelize.query(
        `SELECT c.relname AS name FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
         WHERE c.relkind = 'r' AND a.attname = 'id'
           AND pg_get_serial_sequence(quote_ident(c.relname), 'id') IS NOT NULL`,
      );
      for (const { name } of tables as Array<{ name: string }>) {
        await db.sequelize.query(
          `SELECT setval(pg_get_serial_sequence('${name}', 'id'),
                         coalesce((SELECT max(id) FROM ${name}), 0) + 1, false)`,
        );
      }
      await db.close();
    },
  };
}

/**
 * What a data folder's database holds at rest, to look for a secret in: the SQLite files
 * (database and WAL), or on PostgreSQL the text of every row of every table of the folder's
 * test database.
 */
export async function storedDatabase(dataDir: string): Promise<Buffer[]> {
  const database = keptDatabases.get(dataDir);
  if (!database) {
    return readdirSync(dataDir)
      .filter((f) => f.startsWith('herald.db'))
      .map((f) => readFileSync(join(dataDir, f)));
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'",
    );
    const dumps: Buffer[] = [];
    for (const { name } of rows) {
      const dump = await client.query<{ text: string | null }>(
        `SELECT string_agg(t::text, E'\\n') AS text FROM "${name}" t`,
      );
      dumps.push(Buffer.from(dump.rows[0]?.text ?? ''));
    }
    return dumps;
  } finally {
    await client.end();
  }
}
