import { afterAll } from 'vitest';

import { dropKeptDatabases } from './test-database';

// A test file's Heralds may be closed keeping their database for a restart; none outlives it.
afterAll(() => dropKeptDatabases());
