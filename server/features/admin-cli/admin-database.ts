import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { QueryTypes } from 'sequelize';

import { parseDatabaseUrl, redactDatabaseUrl } from '../../config/database-url';
import { readSecretVariable } from '../../config/secret-variable';
import { DB_FILE } from '../../data-dir/permissions';
import { openDatabase, type Database } from '../../db/database';
import { MIGRATION_NAMES } from '../../db/migrate';
import { initModels } from '../../db/models';
import { openPostgresDatabase } from '../../db/postgres/open-postgres';
import { AdminRefused } from './admin-refused';

/** Which database the command works on, as Herald's start would pick it. */
export interface AdminDatabaseTarget {
  /** The data folder (SQLite's file lives there). */
  dataDir: string;
  /** HERALD_DATABASE_URL(_FILE): PostgreSQL when set. */
  databaseUrl: string | null;
}

export function adminDatabaseTarget(dataDir: string, env: NodeJS.ProcessEnv): AdminDatabaseTarget {
  const url = readSecretVariable(env, 'HERALD_DATABASE_URL');
  return { dataDir, databaseUrl: parseDatabaseUrl(url.value, url.name) };
}

/** What the messages call the database: the file, or the URL without its password. */
export function describeTarget(target: AdminDatabaseTarget): string {
  return target.databaseUrl ? redactDatabaseUrl(target.databaseUrl) : join(target.dataDir, DB_FILE);
}

/**
 * Opens Herald's database beside a Herald that may be running on it, without the data folder's
 * lock (that lock keeps a second server away, not a short write): on SQLite, WAL lets this
 * process write between the server's cycles and the busy timeout waits out one in progress; on
 * PostgreSQL, any number of processes share the database. Nothing is created or migrated: a
 * missing database, or one a different Herald version left, is refused with what to do.
 */
export async function openAdminDatabase(target: AdminDatabaseTarget): Promise<Database> {
  const where = describeTarget(target);
  let db: Database;
  if (target.databaseUrl) {
    db = await openPostgresDatabase(target.databaseUrl);
  } else {
    const file = join(target.dataDir, DB_FILE);
    // Opening a missing file would create an empty database in a folder Herald never used.
    if (!existsSync(file)) {
      throw new AdminRefused(
        `there is no Herald database at ${file}: give the data folder Herald runs on with ` +
          '--data-dir (or HERALD_DATA_DIR), or set HERALD_DATABASE_URL if it runs on PostgreSQL',
      );
    }
    // The write worker is for a server's hot path; a one-off job writes a row or two.
    db = await openDatabase(file, { writeWorker: 'off' });
  }
  try {
    await checkSchema(db, where);
    initModels(db.sequelize);
    return db;
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** The database must be exactly as far as this Herald: the models below are this version's. */
async function checkSchema(db: Database, where: string): Promise<void> {
  const dialect = db.sequelize.getDialect();
  const [table] = await db.sequelize.query<{ n: number | string }>(
    dialect === 'postgres'
      ? `SELECT count(*) AS n FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_name = 'schema_migrations'`
      : `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`,
    { type: QueryTypes.SELECT },
  );
  if (Number(table?.n ?? 0) === 0) {
    throw new AdminRefused(
      `${where} holds no Herald database yet: start Herald on it once (it creates the first ` +
        'administrator), or point this command at the database Herald runs on',
    );
  }
  const rows = await db.sequelize.query<{ name: string }>('SELECT name FROM schema_migrations', {
    type: QueryTypes.SELECT,
  });
  const applied = new Set(rows.map((r) => r.name));
  const known = new Set(MIGRATION_NAMES);
  const newer = [...applied].filter((name) => !known.has(name));
  if (newer.length > 0) {
    throw new AdminRefused(
      `${where} was last used by a newer Herald (migration ${newer.join(', ')} is unknown here): ` +
        'run herald admin from that version',
    );
  }
  const missing = MIGRATION_NAMES.filter((name) => !applied.has(name));
  if (missing.length > 0) {
    throw new AdminRefused(
      `${where} was last used by an older Herald (${missing.length} migration(s) not applied, ` +
        'from ' +
        missing[0] +
        '): start this version of Herald on it once (it upgrades the database), then run this again',
    );
  }
}
