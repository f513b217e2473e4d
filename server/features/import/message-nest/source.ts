import { ImportInputError } from './schema';
import { openSqliteSource } from './sqlite-source';
import { openMySqlSource, openPostgresSource } from './server-sources';
import type { Row } from './values';

/**
 * A Message Nest database opened for reading only: a SQLite file opened read-only, or a
 * MySQL/PostgreSQL connection inside a read-only transaction. Nothing here can write.
 */
export interface SourceReader {
  /** Where it reads from, safe to print (no password). */
  readonly description: string;
  listTables(): Promise<string[]>;
  listColumns(table: string): Promise<string[]>;
  readAll(table: string): Promise<Row[]>;
  close(): Promise<void>;
}

/** Opens `mysql://…`, `postgres://…` (or `postgresql://…`) URLs, and anything else as a SQLite file. */
export async function openSource(location: string): Promise<SourceReader> {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1]?.toLowerCase();
  if (scheme === undefined) return openSqliteSource(location);
  if (scheme === 'mysql' || scheme === 'mariadb') return openMySqlSource(location);
  if (scheme === 'postgres' || scheme === 'postgresql') return openPostgresSource(location);
  throw new ImportInputError(
    `${scheme}:// is not a source the importer reads: give a Message Nest SQLite file (conf/database.db), ` +
      'a mysql://user:password@host:3306/database URL, or a postgres://user:password@host:5432/database URL',
  );
}
