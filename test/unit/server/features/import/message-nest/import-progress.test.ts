import { describe, expect, it } from 'vitest';

import type { CallerTx } from '../../../../../../server/db/caller-tx';
import {
  ImportRun,
  type ImportDeps,
} from '../../../../../../server/features/import/message-nest/import-run';
import {
  emptyCounts,
  type ImportReport,
} from '../../../../../../server/features/import/message-nest/report';
import type { Snapshot } from '../../../../../../server/features/import/message-nest/snapshot';
import { rowProgress } from '../../../../../../server/lib/progress';

const snapshot: Snapshot = {
  description: 'a test source',
  schema: { prefix: 'mn_', tables: { send_ways: 'mn_send_ways' }, columns: {} },
  rows: { send_ways: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] },
};

const report = (): ImportReport => ({
  source: snapshot.description,
  dryRun: true,
  tablePrefix: 'mn_',
  counts: emptyCounts(),
  skipped: [],
  scheduleZones: [],
  notes: [],
});

describe('the Message Nest import’s progress', () => {
  it('counts every row a step walks past (skipped ones too) under the source’s table name', () => {
    const lines: string[] = [];
    let clock = 0;
    const progress = rowProgress({ write: (l) => lines.push(l), now: () => clock, intervalMs: 10 });
    const run = new ImportRun({} as ImportDeps, snapshot, report(), {} as CallerTx, progress);

    const seen: unknown[] = [];
    for (const row of run.walk('send_ways')) {
      clock += 6;
      if (row.id === 'b') continue;
      seen.push(row.id);
    }
    // A table the source lacks prints nothing.
    expect([...run.walk('send_tasks')]).toEqual([]);
    progress.done();

    expect(seen).toEqual(['a', 'c']);
    expect(lines).toEqual([
      'mn_send_ways: 2 / 3 rows (66 %)',
      'mn_send_ways: 3 / 3 rows (100 %)',
      'done, 1 table: 3 / 3 rows (100 %)',
    ]);
  });

  it('prints nothing without a progress (the console’s import)', () => {
    const run = new ImportRun({} as ImportDeps, snapshot, report(), {} as CallerTx);
    expect([...run.walk('send_ways')].map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });
});
