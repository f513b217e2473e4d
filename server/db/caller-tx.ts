import type { WriteLock, WriteTx } from './writer';

/**
 * A write transaction a caller holds open, which a service joins instead of queuing a job of
 * its own: the Writer runs one job at a time, so a job that queued another and waited for it
 * would wait forever, and the caller's writes and the service's commit or roll back together
 * (the Message Nest import: all or nothing). What must wait until the writes are committed —
 * events, the relay to other processes, what a process keeps in memory — goes to
 * `afterCommit`: it runs once the transaction committed, and never if it rolls back.
 */
export interface CallerTx extends WriteTx {
  afterCommit(effect: () => void): void;
}

/** Runs `fn` as one job of the Writer; once the job committed, the effects it handed over. */
export async function transact<T>(
  writeLock: WriteLock,
  fn: (tx: CallerTx) => Promise<T>,
): Promise<T> {
  let effects: Array<() => void> = [];
  const value = await writeLock.run((tx) => {
    // A job whose COMMIT failed runs again in a transaction of its own: only the effects of
    // the run that committed stand.
    const own: Array<() => void> = [];
    effects = own;
    return fn({ ...tx, afterCommit: (effect) => own.push(effect) });
  });
  for (const effect of effects) effect();
  return value;
}

/** `fn` in the caller's transaction when there is one, else in a job of its own. */
export function joinOrTransact<T>(
  writeLock: WriteLock,
  tx: CallerTx | undefined,
  fn: (tx: CallerTx) => Promise<T>,
): Promise<T> {
  return tx ? fn(tx) : transact(writeLock, fn);
}
