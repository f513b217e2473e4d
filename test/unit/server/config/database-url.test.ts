import { describe, expect, it } from 'vitest';

import { parseDatabaseUrl, redactDatabaseUrl } from '../../../../server/config/database-url';
import { readHeraldConfig } from '../../../../server/config/herald-config';

describe('HERALD_DATABASE_URL', () => {
  it('is SQLite when unset or blank', () => {
    expect(parseDatabaseUrl(undefined)).toBeNull();
    expect(parseDatabaseUrl('  ')).toBeNull();
    expect(readHeraldConfig({ dataDir: '/tmp/x' }, {}).databaseUrl).toBeNull();
  });

  it('takes postgres:// and postgresql:// URLs, the option over the variable', () => {
    expect(parseDatabaseUrl('postgres://u:p@db:5432/herald')).toBe('postgres://u:p@db:5432/herald');
    expect(parseDatabaseUrl('postgresql://db/herald')).toBe('postgresql://db/herald');
    const env = { HERALD_DATABASE_URL: 'postgres://env/herald' };
    expect(readHeraldConfig({ dataDir: '/tmp/x' }, env).databaseUrl).toBe('postgres://env/herald');
    expect(
      readHeraldConfig({ dataDir: '/tmp/x', databaseUrl: 'postgres://opt/h' }, env).databaseUrl,
    ).toBe('postgres://opt/h');
  });

  it.each([
    ['herald.db', /not a URL/],
    ['mysql://db/herald', /"mysql:" is not supported/],
    ['sqlite:///tmp/herald.db', /"sqlite:" is not supported/],
    ['postgres://db:5432', /names no database/],
  ])('refuses %s, naming the variable', (value, reason) => {
    expect(() => parseDatabaseUrl(value)).toThrow(/^HERALD_DATABASE_URL: /);
    expect(() => parseDatabaseUrl(value)).toThrow(reason);
  });

  it('is logged without its password', () => {
    expect(redactDatabaseUrl('postgres://herald:s3cret@db/herald')).toBe(
      'postgres://herald:***@db/herald',
    );
    expect(redactDatabaseUrl('postgres://db/herald')).not.toContain('***');
  });
});
