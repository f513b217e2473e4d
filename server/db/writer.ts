import type { Transaction } from 'sequelize';

import { createLogger } from '../lib/logger';
import type { SqlExecutor } from './sql';
import type { WriteTurn } from './write-turn';
import type { RemoteCycles, WriteWorkerSlot } from './write-worker/remote-cycles';

const log = createLogger('writer');

/** What a write job gets: the open transaction, for raw statements and for model calls. */
export interface WriteTx {
  /** Parameterised statements on the write connection, inside the cycle's transaction. */
  sql: SqlExecutor;
  /**
   * The same transaction for Sequelize: model writes inside a job join it anyway (they run on
   * the write connection); pass `{ transaction }` to a model *read* that must see this job's
   * own writes, because reads without it go to the read connection.
   */
  transaction: Transaction;
}

/**
 * A kind of write whose concurrent jobs are written together: one call with every item of a
 * cycle (one multi-row INSERT, one set-based UPDATE), one result per item, in order.
 */
export interface BatchKind<I, R> {
  readonly name: string;
  run(tx: WriteTx, items: readonly I[]): Promise<R[]>;
  /**
   * A kind the SQLite write worker can run instead (write-worker.ts): the name of its program
   * there (delivery-programs.ts), which does what `run` does, and the moment the cycle runs
   * at, taken on this thread when the cycle starts. Items and results must be plain data.
   */
  readonly remote?: { program: string; moment(): unknown };
}

/**
 * How a job may be run. Repeatable: only statements, which the Writer may run again after a
 * rollback (a failure elsewhere in the cycle); it shares cycles with everything else. Not
 * repeatable (the default): a job that also changes something outside the database, above all
 * a Sequelize instance (`row.update(…)`: run again after a rollback, Sequelize finds nothing
 * changed and writes nothing, and the update is lost without an error). Such jobs run once
 * each under a savepoint of their own, in cycles of their own, so another job's failure never
 * makes them run again.
 */
export interface JobOptions {
  repeatable?: boolean;
}

/** The thin adapter the console's services write through: `deps.writeLock.run(() => Model.create(…))`. */
export interface WriteLock {
  run<T>(fn: (tx: WriteTx) => Promise<T>, options?: JobOptions): Promise<T>;
}

interface Entry {
  kind: BatchKind<unknown, unknown>;
  item: unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Repeatable single jobs (statements only: the dispatcher's defers, startup recovery) are one
 * kind too: they run one after another inside the cycle, and like any kind, if one fails they
 * are rolled back and run again each under a savepoint of its own, so only the failing one is
 * refused.
 */
const singleJobs: BatchKind<(tx: WriteTx) => Promise<unknown>, unknown> = {
  name: 'job',
  async run(tx, jobs) {
    const results: unknown[] = [];
    for (const job of jobs) results.push(await job(tx));
    return results;
  },
};

/** Cycles rolled back by a deadlock (several processes on PostgreSQL) run again this often. */
const MAX_CONFLICT_RETRIES = 5;

/** PostgreSQL's deadlock and serialization failures, as pg or Sequelize report them. */
function isLockConflict(err: unknown): boolean {
  const codes = [err, (err as { parent?: unknown })?.parent].map(
    (e) => (e as { code?: unknown } | undefined)?.code,
  );
  return codes.some((c) => c === '40P01' || c === '40001');
}

/**
 * Jobs that are not repeatable (see JobOptions): each runs once, under its own savepoint, and
 * its outcome is its own; the kind never fails the cycle. Only a failed COMMIT (a deferred
 * constraint, a full disk) runs them again, each in a transaction of its own.
 */
const onceJobs: BatchKind<(tx: WriteTx) => Promise<unknown>, Settled> = {
  name: 'job (once)',
  async run(tx, jobs) {
    const results: Settled[] = [];
    for (const job of jobs) {
      for (let conflicts = 0; ; conflicts++) {
        await tx.sql.exec('SAVEPOINT once');
        try {
          const value = await job(tx);
          await tx.sql.exec('RELEASE once');
          results.push({ ok: true, value });
        } catch (error) {
          await tx.sql.exec('ROLLBACK TO once; RELEASE once');
          // A deadlock with another process failed the job's own statement before it took
          // effect: that one job may run again.
          if (isLockConflict(error) && conflicts < MAX_CONFLICT_RETRIES) continue;
          results.push({ ok: false, error });
        }
        break;
      }
    }
    return results;
  },
};

/** Answers an entry with what its cycle wrote; a once-job carries its own outcome. */
function answer(e: Entry, value: unknown): void {
  if (e.kind !== onceJobs) return e.resolve(value);
  const settled = value as Settled;
  if (settled.ok) e.resolve(settled.value);
  else e.reject(settled.error);
}

/** Items of one cycle are grouped by kind; kinds run in the order they first arrived. */
function groupByKind(entries: Entry[]): Entry[][] {
  const groups = new Map<BatchKind<unknown, unknown>, Entry[]>();
  for (const e of entries) {
    const group = groups.get(e.kind);
    if (group) group.push(e);
    else groups.set(e.kind, [e]);
  }
  return [...groups.values()];
}

/**
 * The one writer of the database. Every write — accepted sends, the dispatcher's claims and
 * outcomes, console CRUD — is a job queued here; whatever is queued when a cycle starts is
 * written in one `BEGIN IMMEDIATE … COMMIT`, with the jobs of one kind merged into one call.
 * A job is answered only after its cycle committed.
 *
 * Failure never takes bystanders down: a cycle that fails is rolled back and run again with
 * each kind under a savepoint, a failing kind item by item, so only the bad item is refused;
 * if that cannot commit either, every job runs again in a transaction of its own.
 *
 * SQLite allows one writer at a time; in this process that writer is this class, so nothing
 * else may write on the write connection (reads go to the read connection, see database.ts).
 */
export class Writer implements WriteLock {
  private queue: Entry[] = [];
  private scheduled = false;
  private cycling: Promise<void> | null = null;
  private closed = false;
  private savepoints = 0;
  private workers: WriteWorkerSlot | null = null;
  private turn: WriteTurn | null = null;

  constructor(
    private readonly sql: SqlExecutor,
    private readonly newTransaction: () => Transaction,
    private readonly maxEntries = 1000,
  ) {}

  /**
   * From now on, the kinds that name a worker program are written by the write worker while
   * it runs, in a cycle of their own (remote-cycles.ts); the rest stay on this connection.
   */
  useWorkers(workers: WriteWorkerSlot): void {
    this.workers = workers;
  }

  /**
   * From now on each cycle first waits for the write turn it shares with another thread's
   * Writer on the same file (write-turn.ts: the delivery thread's).
   */
  takeTurns(turn: WriteTurn): void {
    this.turn = turn;
  }

  /**
   * One job. A repeatable one shares the cycle's transaction with whatever else is queued;
   * any other runs once, in a cycle of such jobs (JobOptions).
   */
  run<T>(fn: (tx: WriteTx) => Promise<T>, options: JobOptions = {}): Promise<T> {
    return this.submit(options.repeatable ? singleJobs : onceJobs, fn) as Promise<T>;
  }

  /** Queues one item of a mergeable kind for the next cycle. */
  submit<I, R>(kind: BatchKind<I, R>, item: I): Promise<R> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return new Promise<R>((resolve, reject) => {
      this.queue.push({
        kind: kind as BatchKind<unknown, unknown>,
        item,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      this.schedule();
    });
  }

  /** Refuses new jobs and waits for those already queued. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.cycling || this.queue.length > 0) {
      if (this.cycling) await this.cycling;
      else await this.cycle();
    }
  }

  private schedule(): void {
    if (this.scheduled || this.cycling) return;
    this.scheduled = true;
    // Jobs that arrive in the same turn of the event loop (a burst of requests) share a cycle.
    setImmediate(() => {
      this.scheduled = false;
      if (!this.cycling) void this.cycle();
    });
  }

  private cycle(): Promise<void> {
    const entries = this.queue.splice(0, this.maxEntries);
    const worker = entries.some((e) => e.kind.remote) ? (this.workers?.take() ?? null) : null;
    const remote = worker ? entries.filter((e) => e.kind.remote) : [];
    const local = remote.length === 0 ? entries : entries.filter((e) => !e.kind.remote);
    // Once-jobs never share a transaction with jobs the Writer may run again.
    const once = local.filter((e) => e.kind === onceJobs);
    const rest = once.length === 0 ? local : local.filter((e) => e.kind !== onceJobs);
    const turn = this.turn;
    this.cycling = (turn ? turn.take() : Promise.resolve())
      .then(() => this.runRemoteCycle(worker, remote))
      .then(() => this.runCycle(rest))
      .then(() => this.runCycle(once))
      .catch((err) => {
        // runCycle settles every entry itself; this is a last guard against a hung caller.
        log.error(`write cycle failed: ${String(err)}`);
        for (const e of entries) e.reject(err);
      })
      .finally(() => {
        turn?.give();
        this.cycling = null;
        if (this.queue.length > 0) void this.cycle();
      });
    return this.cycling;
  }

  /**
   * The usual cycle: BEGIN, one call per kind, COMMIT, and nothing else, since every
   * statement is a round trip to SQLite's worker thread, and under load each round trip waits
   * for a turn of the event loop. The kinds run side by side: their statements queue on the
   * one connection, which runs them one at a time, and the cycle waits for the longest chain
   * of dependent statements instead of the sum of all. Kinds never depend on each other's
   * writes within a cycle (jobs that arrived together could have been written in any order).
   * Only when something fails does the cycle start again, kind after kind, with savepoints
   * (see isolateFailures).
   */
  private async runCycle(entries: Entry[], conflicts = 0): Promise<void> {
    if (entries.length === 0) return;
    const values = new Map<Entry, unknown>();
    try {
      await this.inTransaction(async (tx) => {
        const runs = await Promise.allSettled(
          groupByKind(entries).map(async (group) => {
            const results = await group[0].kind.run(
              tx,
              group.map((e) => e.item),
            );
            group.forEach((e, i) => values.set(e, results[i]));
          }),
        );
        // Every kind has settled before the first failure rolls the cycle back.
        const failed = runs.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
      });
    } catch (err) {
      // PostgreSQL broke a deadlock with another process's transaction by rolling this one
      // back: nothing in it was wrong, so it runs again as it was.
      if (isLockConflict(err) && conflicts < MAX_CONFLICT_RETRIES) {
        await new Promise((r) => setTimeout(r, Math.random() * 20 * (conflicts + 1)));
        return this.runCycle(entries, conflicts + 1);
      }
      if (entries.length === 1) entries[0].reject(err);
      else await this.isolateFailures(entries, err);
      return;
    }
    for (const [e, value] of values) answer(e, value);
  }

  /**
   * A cycle of worker kinds, written by the worker in one transaction of its own connection
   * while this thread goes on parsing requests. The worker isolates failures as runCycle does
   * and answers each item. Nothing else writes meanwhile: the next cycle waits for this one.
   */
  private async runRemoteCycle(worker: RemoteCycles | null, entries: Entry[]): Promise<void> {
    if (entries.length === 0 || !worker) return;
    const groups = groupByKind(entries);
    let results;
    try {
      results = await worker.run(
        groups.map((group) => ({
          program: group[0].kind.remote!.program,
          moment: group[0].kind.remote!.moment(),
          items: group.map((e) => e.item),
        })),
      );
    } catch (err) {
      for (const e of entries) e.reject(err);
      return;
    }
    groups.forEach((group, g) =>
      group.forEach((e, i) => {
        const settled = results[g][i];
        if (settled.ok) e.resolve(settled.value);
        else e.reject(settled.error);
      }),
    );
  }

  /**
   * The cycle again, each kind under a savepoint and a failing kind item by item, so only the
   * failing jobs are refused. If even that cannot commit, every job runs in a transaction of
   * its own.
   */
  private async isolateFailures(entries: Entry[], cause: unknown): Promise<void> {
    log.warn(`a write cycle of ${entries.length} jobs failed (${String(cause)}); isolating it`);
    const settled = new Map<Entry, Settled>();
    try {
      await this.inTransaction(async (tx) => {
        for (const group of groupByKind(entries)) await this.runGroup(tx, group, settled);
      });
    } catch {
      for (const e of entries) {
        const s = settled.get(e);
        if (s && !s.ok) e.reject(s.error);
        else await this.runCycle([e]);
      }
      return;
    }
    for (const [e, s] of settled) {
      if (s.ok) answer(e, s.value);
      else e.reject(s.error);
    }
  }

  private async inTransaction(work: (tx: WriteTx) => Promise<void>): Promise<void> {
    const transaction = this.newTransaction();
    try {
      await this.sql.exec('BEGIN IMMEDIATE');
      await work({ sql: this.sql, transaction });
      await this.sql.exec('COMMIT');
    } catch (err) {
      await this.sql.exec('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      // A job that kept the transaction object cannot use it after the cycle.
      (transaction as unknown as { finished: string }).finished = 'commit';
    }
  }

  /** One kind's items under a savepoint; on failure, each item again under its own. */
  private async runGroup(tx: WriteTx, group: Entry[], settled: Map<Entry, Settled>) {
    const savepoint = `w${++this.savepoints}`;
    await this.sql.exec(`SAVEPOINT ${savepoint}`);
    try {
      const values = await group[0].kind.run(
        tx,
        group.map((e) => e.item),
      );
      await this.sql.exec(`RELEASE ${savepoint}`);
      group.forEach((e, i) => settled.set(e, { ok: true, value: values[i] }));
    } catch (error) {
      // If even this fails, the transaction is gone: the cycle's catch retries everything.
      await this.sql.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      if (group.length === 1) {
        settled.set(group[0], { ok: false, error });
        return;
      }
      for (const e of group) await this.runGroup(tx, [e], settled);
    }
  }
}
