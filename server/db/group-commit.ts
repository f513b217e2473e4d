import type { Sequelize, Transaction } from 'sequelize';

import type { WriteLock } from './sequelize';

interface Job {
  work(transaction: Transaction): Promise<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * Runs concurrent write jobs together in one transaction. Under load, requests that arrive
 * while a commit is under way share the next one, so a burst costs a few commits instead of
 * one per request. If a shared commit fails, each job is run again on its own, so one bad job
 * never takes the others down with it.
 */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly writeLock: WriteLock,
    private readonly maxBatch = 100,
  ) {}

  run<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        void this.writeLock.run(() => this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length > 0) {
      this.scheduled = true;
      void this.writeLock.run(() => this.flush());
    }
    if (batch.length === 0) return;
    const results: unknown[] = [];
    try {
      await this.sequelize.transaction(async (transaction) => {
        for (const job of batch) results.push(await job.work(transaction));
      });
      batch.forEach((job, i) => job.resolve(results[i]));
    } catch {
      for (const job of batch) {
        try {
          job.resolve(await this.sequelize.transaction((t) => job.work(t)));
        } catch (err) {
          job.reject(err);
        }
      }
    }
  }
}
