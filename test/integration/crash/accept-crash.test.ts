import { describe, expect, it } from 'vitest';

import { onPostgres } from '../../helpers/test-database';
import { expectAtLeastOnce, runCrashScenario } from './crash-harness';

/**
 * On SQLite the accept cycles are written by the write worker once it runs (it starts with the
 * first cycle), so the points inside a cycle are reached there; PostgreSQL has no worker.
 */
function expectInWriteWorker(output: string) {
  if (!onPostgres()) expect(output, output).toContain('in the write worker');
}

// 200 sends over 20 connections: at most 20 are accepted per write cycle, so dying at the
// 4th cycle that accepts sends leaves sends answered, sends committed and unanswered or
// rolled back, and sends never read, while the dispatcher delivers the first ones.
const load = { sends: 200, connections: 20, at: 4 };

describe('a crash while sends are being accepted', () => {
  it('before the commit: the cycle rolls back whole, every answered send is delivered', async () => {
    const run = await runCrashScenario({ point: 'before-commit', ...load });
    expectAtLeastOnce(run, 'before-commit');
    expectInWriteWorker(run.crashOutput);
    expect(run.answered.size).toBeGreaterThan(0);
    // The dying cycle's sends were read but never committed: no trace of them remains.
    expect([...run.unanswered].filter((t) => !run.atKill.sends.has(t)).length).toBeGreaterThan(0);
  }, 60_000);

  it('inside a group commit, sends written and deliveries not: neither survives', async () => {
    const run = await runCrashScenario({ point: 'during-cycle', ...load });
    expectAtLeastOnce(run, 'during-cycle');
    expectInWriteWorker(run.crashOutput);
    expect(run.answered.size).toBeGreaterThan(0);
    expect([...run.unanswered].filter((t) => !run.atKill.sends.has(t)).length).toBeGreaterThan(0);
  }, 60_000);

  it('between commit and answer: the unanswered sends are whole and delivered', async () => {
    const run = await runCrashScenario({ point: 'after-commit', ...load });
    expectAtLeastOnce(run, 'after-commit');
    expect(run.answered.size).toBeGreaterThan(0);
    // The dying cycle committed: its sends got no answer but are kept and delivered.
    const committedUnanswered = [...run.unanswered].filter((t) => run.atKill.sends.has(t));
    expect(committedUnanswered.length).toBeGreaterThan(0);
    const delivered = new Set(run.receipts.map((r) => r.title));
    expect(committedUnanswered.filter((t) => !delivered.has(t))).toEqual([]);
  }, 60_000);
});
