import { ImportInputError } from './schema';
import type { SourceReader } from './source';
import type { Row } from './values';

/**
 * The MySQL and PostgreSQL drivers are optional: only someone importing from such a server
 * needs them, so they are loaded on first use and their absence is a clear instruction.
 */
async function loadDriver<T>(
  name: 'mysql2/promise' | 'pg',
  install: string,
  what: string,
): Promise<T> {
  // A specifier in a variable keeps bundlers from inlining (or requiring) the driver.
  const specifier: string = name;
  try {
    const mod = (await import(specifier)) as { default?: T } & T;
    return mod.default ?? mod;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new ImportInputError(
        `reading a ${what} database needs the ${install} driver, which is not installed: run \`npm install ${install}\` in Herald's folder, then import again`,
      );
    }
    throw err;
  }
}

const CONNECT_TIMEOUT_MS = 10_000;

function unreachable(what: string, url: string, err: unknown): ImportInputError {
  const message = (err as Error).message || String((err as NodeJS.ErrnoException).code ?? err);
  return new ImportInputError(
    `cannot read the ${what} database at ${safeUrl(url)}: ${message}. Check the host, port, user, password and database name in the URL`,
  );
}

interface MySqlConnection {
  query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>;
  end(): Promise<void>;
}
interface MySqlDriver {
  createConnection(options: Record<string, unknown>): Promise<MySqlConnection>;
}

/** MySQL, MariaDB and TiDB (Message Nest's `mysql` and `tidb` types), in a read-only transaction. */
export async function openMySqlSource(url: string): Promise<SourceReader> {
  const driver = await loadDriver<MySqlDriver>('mysql2/promise', 'mysql2', 'MySQL');
  const parsed = new URL(url);
  if (parsed.pathname.replace(/^\//, '') === '') {
    throw new ImportInputError(
      `${safeUrl(url)} names no database: add Message Nest's database name, as mysql://user:password@host:3306/message_nest`,
    );
  }
  let connection: MySqlConnection;
  try {
    connection = await driver.createConnection({
      uri: url.replace(/^mariadb:/i, 'mysql:'),
      connectTimeout: CONNECT_TIMEOUT_MS,
      supportBigNumbers: true,
    });
    await connection.query('START TRANSACTION READ ONLY');
  } catch (err) {
    throw unreachable('MySQL', url, err);
  }
  const select = async (sql: string, values: unknown[] = []) => {
    const [rows] = await connection.query(sql, values);
    return rows as Row[];
  };
  const quote = (name: string) => `\`${name.replace(/`/g, '``')}\``;
  return {
    description: `the MySQL database ${safeUrl(url)}`,
    async listTables() {
      const rows = await select(
        'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()',
      );
      return rows.map((r) => String(r.name ?? r.NAME ?? r.TABLE_NAME));
    },
    async listColumns(table) {
      const rows = await select(
        'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?',
        [table],
      );
      return rows.map((r) => String(r.name ?? r.NAME ?? r.COLUMN_NAME));
    },
    readAll(table) {
      return select(`SELECT * FROM ${quote(table)}`);
    },
    async close() {
      await connection.query('ROLLBACK').catch(() => undefined);
      await connection.end().catch(() => undefined);
    },
  };
}

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): void;
}
interface PgDriver {
  Client: new (options: Record<string, unknown>) => PgClient;
}

/** PostgreSQL (Message Nest's `postgres` type, v2.2.2+), in a read-only transaction. */
export async function openPostgresSource(url: string): Promise<SourceReader> {
  const driver = await loadDriver<PgDriver>('pg', 'pg', 'PostgreSQL');
  const client = new driver.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // A connection dropped after the import finished must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('BEGIN TRANSACTION READ ONLY');
  } catch (err) {
    await client.end().catch(() => undefined);
    throw unreachable('PostgreSQL', url, err);
  }
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return {
    description: `the PostgreSQL database ${safeUrl(url)}`,
    async listTables() {
      const { rows } = await client.query(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      );
      return rows.map((r) => String(r.name));
    },
    async listColumns(table) {
      const { rows } = await client.query(
        'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
        [table],
      );
      return rows.map((r) => String(r.name));
    },
    async readAll(table) {
      return (await client.query(`SELECT * FROM ${quote(table)}`)).rows;
    },
    async close() {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

/** The URL with its password hidden, for messages and reports. */
function safeUrl(location: string): string {
  try {
    const url = new URL(location);
    if (url.password) url.password = '***';
    return url.href;
  } catch {
    return location.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
  }
}
