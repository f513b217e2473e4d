import { afterEach, describe, expect, it } from 'vitest';

import { WORKER_ENTRIES } from '../../../../scripts/build-server.mjs';
import { WORKER_VARIABLES, workerFile } from '../../../../server/lib/worker-file';

describe('workerFile', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('knows a variable for every worker the builds make, and for no other', () => {
    expect(Object.keys(WORKER_VARIABLES).sort()).toEqual(Object.keys(WORKER_ENTRIES).sort());
    expect(new Set(Object.values(WORKER_VARIABLES)).size).toBe(Object.keys(WORKER_ENTRIES).length);
  });

  it('answers the file a worker’s variable names, else none when run from the sources', () => {
    process.env[WORKER_VARIABLES['backup-worker']] = '/somewhere/backup.mjs';
    expect(workerFile('backup-worker')).toBe('/somewhere/backup.mjs');
    delete process.env[WORKER_VARIABLES['write-worker']];
    // From TypeScript there is no write-worker.js beside server/lib.
    expect(workerFile('write-worker')).toBeNull();
  });
});
