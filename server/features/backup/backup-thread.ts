import { startWorker, workerEntry, type WorkerEntry } from '../../lib/worker-file';
import { BackupRefused } from './backup-refused';
import { writeBackup, type BackupMade, type BackupOptions } from './make-backup';

/**
 * A running Herald makes its backups (the console's download, the schedule) on a thread of its
 * own. writeBackup copies the whole database in one step and then reads it all again for its
 * checksum, synchronously: on the main thread a database of years of history stopped every
 * send and delivery for as long as that took.
 */

/** What the backup thread is given: BackupOptions as plain data (a Buffer arrives as bytes). */
export interface BackupJob {
  options: Omit<BackupOptions, 'now' | 'key'> & { key: Uint8Array | null };
  /** The backup's moment (ms), for its `createdAt`. */
  now: number;
}

/** What it answers, once. */
export type BackupAnswer =
  { ok: true; made: BackupMade } | { ok: false; refused: boolean; message: string };

/**
 * writeBackup on the backup thread (server/workers/backup-worker.ts), or on this thread when
 * there is none (sources without tsx). A refusal comes back as the BackupRefused it was.
 */
export async function writeBackupOffThread(options: BackupOptions): Promise<BackupMade> {
  const entry = workerEntry('backup-worker');
  if (!entry) return writeBackup(options);
  return (await runBackupThread(entry, options)).made;
}

/** One backup on a new thread from `entry`; with the thread's id, for the tests. */
export function runBackupThread(
  entry: WorkerEntry,
  { now, key, ...options }: BackupOptions,
): Promise<{ made: BackupMade; threadId: number }> {
  const job: BackupJob = { options: { ...options, key }, now: (now?.() ?? new Date()).getTime() };
  return new Promise((resolve, reject) => {
    const worker = startWorker(entry, { workerData: job });
    const threadId = worker.threadId;
    let answered = false;
    worker.once('message', (answer: BackupAnswer) => {
      answered = true;
      if (answer.ok) resolve({ made: answer.made, threadId });
      else reject(answer.refused ? new BackupRefused(answer.message) : new Error(answer.message));
    });
    worker.once('error', (err) => {
      answered = true;
      reject(new Error(`the backup thread failed: ${err.message}`));
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the backup thread stopped (exit code ${code}) unanswered`));
    });
  });
}
