import { afterAll } from 'vitest';

import { dropKeptDatabases, onPostgres } from './test-database';

// A test file's Heralds may be closed keeping their database for a restart; none outlives it.
afterAll(async () => {
  if (onPostgres()) await dropKeptDatabases();
});
