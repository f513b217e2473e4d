/**
 * The backup thread (features/backup/backup-thread.ts): makes the one backup it is started for
 * with writeBackup and answers with what was made or why not, then ends. It exists because a
 * backup of a large database copies for seconds, which on the main thread would hold up the
 * desktop window, notifications and deliveries. Compiled beside the bundle that starts it
 * (out/server/backup-worker.js, out/main/backup-worker.js); from the sources, started through
 * from-sources.mjs (lib/worker-file.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';

import { BackupRefused } from '../features/backup/backup-refused';
import type { BackupAnswer, BackupJob } from '../features/backup/backup-thread';
import { writeBackup } from '../features/backup/make-backup';

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
