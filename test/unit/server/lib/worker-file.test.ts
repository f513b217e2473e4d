import { existsSync } from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { WORKER_ENTRIES } from '../../../../scripts/build-server.mjs';
import {
  locateWorker,
  WORKER_VARIABLES,
  workerEntry,
  type WorkerName,
  type WorkerPlace,
} from '../../../../server/lib/worker-file';

const root = path.resolve(import.meta.dirname, '../../../..');
const NAMES = Object.keys(WORKER_VARIABLES) as WorkerName[];

describe('worker entries', () => {
  it('knows a variable for every worker the builds make, each in server/workers/, and no other', () => {
    expect(NAMES.sort()).toEqual(Object.keys(WORKER_ENTRIES).sort());
    expect(new Set(Object.values(WORKER_VARIABLES)).size).toBe(NAMES.length);
    for (const [name, source] of Object.entries(WORKER_ENTRIES)) {
      expect(source).toBe(`server/workers/${name}.ts`);
      expect(existsSync(path.join(root, source)), source).toBe(true);
    }
  });

  it('locateWorker() takes the variable first, then the bundle’s own, then the sources through tsx', () => {
    const place = (over: Partial<WorkerPlace>): WorkerPlace => ({
      env: {},
      here: '/app/server/lib',
      fromSources: true,
      exists: () => true,
      tsxAvailable: () => true,
      ...over,
    });
    expect(
      locateWorker('backup-worker', place({ env: { HERALD_BACKUP_WORKER_FILE: '/w/b.mjs' } })),
    ).toEqual({ file: '/w/b.mjs', argv: [] });
    expect(
      locateWorker('write-worker', place({ here: '/app/out/server', fromSources: false })),
    ).toEqual({ file: '/app/out/server/write-worker.js', argv: [] });
    const fromSources = place({ exists: (file) => !file.endsWith('.js') });
    expect(locateWorker('delivery-worker', fromSources)).toEqual({
      file: '/app/server/workers/from-sources.mjs',
      argv: ['/app/server/workers/delivery-worker.ts'],
    });
    // Sources without tsx (a production install has none): no thread, the work stays here.
    expect(
      locateWorker('delivery-worker', { ...fromSources, tsxAvailable: () => false }),
    ).toBeNull();
    // A bundle without its workers beside it has none either.
    expect(
      locateWorker('write-worker', place({ fromSources: false, exists: () => false })),
    ).toBeNull();
  });

  it('workerEntry() here, from the sources, is each worker’s TypeScript entry through the start-up file', () => {
    for (const name of NAMES) {
      const entry = workerEntry(name);
      if (process.env[WORKER_VARIABLES[name]]) continue;
      expect(entry).toEqual({
        file: path.join(root, 'server', 'workers', 'from-sources.mjs'),
        argv: [path.join(root, 'server', 'workers', `${name}.ts`)],
      });
      expect(existsSync(entry!.file)).toBe(true);
    }
  });
});
