import { describe, expect, it } from 'vitest';

import { joinOrTransact, transact, type CallerTx } from '../../../../server/db/caller-tx';
import type { WriteLock, WriteTx } from '../../../../server/db/writer';

const writeTx = {} as WriteTx;

/**
 * A Writer stand-in that runs a job `runs` times (a COMMIT that failed runs the job again) and
 * logs when it committed; a job that throws is rolled back.
 */
function writer(log: string[], runs = 1): WriteLock {
  return {
    async run(fn) {
      let value;
      for (let i = 0; i < runs; i++) value = await fn(writeTx);
      log.push('commit');
      return value as never;
    },
  };
}

describe('a transaction that services join', () => {
  it('runs the effects once the job committed, in the order they were handed over', async () => {
    const log: string[] = [];
    const value = await transact(writer(log), async (tx) => {
      tx.afterCommit(() => log.push('first'));
      tx.afterCommit(() => log.push('second'));
      log.push('written');
      return 7;
    });
    expect(value).toBe(7);
    expect(log).toEqual(['written', 'commit', 'first', 'second']);
  });

  it('runs no effect of a job that rolled back', async () => {
    const log: string[] = [];
    await expect(
      transact(writer(log), async (tx) => {
        tx.afterCommit(() => log.push('effect'));
        throw new Error('dry run');
      }),
    ).rejects.toThrow('dry run');
    expect(log).toEqual([]);
  });

  it('keeps only the effects of the run that committed when a job ran again', async () => {
    const log: string[] = [];
    let run = 0;
    await transact(writer(log, 2), async (tx) => {
      const mine = ++run;
      tx.afterCommit(() => log.push(`effect of run ${mine}`));
    });
    expect(log).toEqual(['commit', 'effect of run 2']);
  });

  it("joins a caller's transaction: no job of its own, its effects wait for the caller's commit", async () => {
    const log: string[] = [];
    const lock = writer(log);
    await transact(lock, async (outer: CallerTx) => {
      const inner = await joinOrTransact(
        { run: () => Promise.reject(new Error('queued a job of its own')) },
        outer,
        async (tx) => {
          tx.afterCommit(() => log.push('inner effect'));
          return tx;
        },
      );
      expect(inner).toBe(outer);
      log.push('inner written');
    });
    expect(log).toEqual(['inner written', 'commit', 'inner effect']);
  });
});
