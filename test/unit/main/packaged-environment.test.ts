import { describe, expect, it } from 'vitest';

import {
  DATABASE_AND_KEY_VARIABLES,
  ignoredVariables,
  isDeveloperVariable,
  removeIgnored,
} from '../../../main/packaged-environment';
import { WORKER_VARIABLES } from '../../../server/lib/worker-file';

/** What a developer's or a headless server's shell profile can leave set. */
const shellProfile = (): Record<string, string | undefined> => ({
  PATH: '/usr/bin',
  HOME: '/home/ada',
  HERALD_LOG: 'info',
  HERALD_WRITE_WORKER_FILE: '/tmp/evil.js',
  HERALD_BACKUP_WORKER_FILE: '/tmp/evil.js',
  HERALD_DELIVERY_WORKER_FILE: '/tmp/evil.js',
  HERALD_TEST_LEASE_MS: '1000',
  HERALD_TEST_CRASH_AT: 'after-commit',
  HERALD_DATABASE_URL: 'postgres://herald@db.example/herald',
  HERALD_DATABASE_URL_FILE: '/run/secrets/db',
  HERALD_SECRET_KEY: 'base64:AAAA',
  HERALD_SECRET_KEY_FILE: '/run/secrets/key',
});

describe('packaged environment', () => {
  it('isDeveloperVariable() knows every worker-file variable and every HERALD_TEST_ one', () => {
    for (const name of Object.values(WORKER_VARIABLES))
      expect(isDeveloperVariable(name)).toBe(true);
    expect(isDeveloperVariable('HERALD_TEST_ANYTHING_NEW')).toBe(true);
    for (const name of ['HERALD_LOG', 'HERALD_DATABASE_URL', 'HERALD_TEST', 'PATH']) {
      expect(isDeveloperVariable(name), name).toBe(false);
    }
  });

  it('ignoredVariables() leaves a development run everything it was given', () => {
    expect(
      ignoredVariables(shellProfile(), { isPackaged: false, databaseFromEnvironment: false }),
    ).toEqual({ developer: [], databaseAndKey: [] });
  });

  it('ignoredVariables() takes the developers’ and the database and key variables from a packaged app', () => {
    const ignored = ignoredVariables(shellProfile(), {
      isPackaged: true,
      databaseFromEnvironment: false,
    });

    expect(ignored.developer).toEqual([
      'HERALD_BACKUP_WORKER_FILE',
      'HERALD_DELIVERY_WORKER_FILE',
      'HERALD_TEST_CRASH_AT',
      'HERALD_TEST_LEASE_MS',
      'HERALD_WRITE_WORKER_FILE',
    ]);
    expect(ignored.databaseAndKey).toEqual([...DATABASE_AND_KEY_VARIABLES]);
  });

  it('ignoredVariables() lets the database and key through when config.json opts in, never the developers’', () => {
    const ignored = ignoredVariables(shellProfile(), {
      isPackaged: true,
      databaseFromEnvironment: true,
    });

    expect(ignored.databaseAndKey).toEqual([]);
    expect(ignored.developer).toHaveLength(5);
  });

  it('ignoredVariables() counts a variable set to nothing: an empty HERALD_DATABASE_URL means SQLite', () => {
    const ignored = ignoredVariables(
      { HERALD_DATABASE_URL: '', HERALD_SECRET_KEY: undefined },
      { isPackaged: true, databaseFromEnvironment: false },
    );

    expect(ignored.databaseAndKey).toEqual(['HERALD_DATABASE_URL']);
  });

  it('removeIgnored() deletes exactly the ignored names', () => {
    const env = shellProfile();
    removeIgnored(env, ignoredVariables(env, { isPackaged: true, databaseFromEnvironment: false }));

    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/ada', HERALD_LOG: 'info' });
  });
});
