/**
 * Parses HERALD_DATABASE_URL (or what HERALD_DATABASE_URL_FILE holds, `name`): unset or empty keeps the embedded SQLite file in the data folder;
 * a `postgres://` or `postgresql://` URL runs Herald on that PostgreSQL database instead. Any
 * other value stops the start, so a typo never silently falls back to a local SQLite file.
 */
export function parseDatabaseUrl(
  value: string | undefined,
  name = 'HERALD_DATABASE_URL',
): string | null {
  const url = (value ?? '').trim();
  if (url === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(
      `${name}: not a URL; give a PostgreSQL URL such as postgres://user:password@host:5432/herald, or leave it unset for SQLite`,
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error(
      `${name}: "${parsed.protocol}" is not supported; only postgres:// (or postgresql://) URLs are, and SQLite needs no URL`,
    );
  }
  if (parsed.pathname.replace(/^\//, '') === '') {
    throw new Error(`${name}: the URL names no database (…/herald at the end)`);
  }
  return url;
}

/** The URL as it may be logged: without its password. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database URL';
  }
}
