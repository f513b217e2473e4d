import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  describeRequest,
  FuzzHarness,
  runFuzz,
  serverCause,
  shrinkFailure,
  type FuzzSummary,
} from '../../fuzz/fuzz-harness';

/**
 * A modest fuzz run on every test run (`npm run fuzz -- --runs 100000` is the full one): a
 * fixed seed, so a failure here is the same failure on every machine; HERALD_FUZZ_SEED picks
 * another.
 */
const SEED = Number(process.env.HERALD_FUZZ_SEED ?? 20261123);
const RUNS = { v1: 140, v2: 140, console: 160 };

describe('fuzz: both send APIs and the console API', () => {
  let harness: FuzzHarness;
  let summary: FuzzSummary;

  beforeAll(async () => {
    harness = await FuzzHarness.start();
    summary = await runFuzz(harness, { runs: RUNS, seed: SEED });
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('sent every generated request over HTTP and got an answer counted', () => {
    expect(summary.runs).toEqual(RUNS);
  });

  it('answers every request below 500 and in the {code,msg,data} envelope', async () => {
    const report: string[] = [];
    // Shrinking replays requests, so only the first few kinds are shrunk.
    for (const group of summary.failures.slice(0, 5)) {
      const small = await shrinkFailure(harness, group, summary.seed);
      report.push(
        `${group.signature} (${group.count}×)\n  ${describeRequest(group.target, small)}` +
          (serverCause(group.outcome) ? `\n  first seen as: ${serverCause(group.outcome)}` : ''),
      );
    }
    for (const group of summary.failures.slice(5))
      report.push(`${group.signature} (${group.count}×)`);

    expect(report).toEqual([]);
  }, 120_000);

  it('is still alive after the run', () => {
    expect(summary.alive).toBe(true);
  });
});
