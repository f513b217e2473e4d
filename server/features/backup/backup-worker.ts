/**
 * The backup thread (backup-thread.ts): makes the one backup it is started for with
 * writeBackup and answers with what was made or why not, then ends. Compiled beside the bundle
 * that starts it: out/server/backup-worker.js, out/main/backup-worker.js.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { BackupRefused } from './backup-refused';
import type { BackupAnswer, BackupJob } from './backup-thread';
import { writeBackup } from './make-backup';

const { options, now } = workerData as BackupJob;
const answer = (a: BackupAnswer) => parentPort!.postMessage(a);

writeBackup({
  ...options,
  key: options.key ? Buffer.from(options.key) : null,
  now: () => new Date(now),
}).then(
  (made) => answer({ ok: true, made }),
  (err: unknown) =>
    answer({
      ok: false,
      refused: err instanceof BackupRefused,
      message: err instanceof Error ? err.message : String(err),
    }),
);
