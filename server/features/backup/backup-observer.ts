import type { BackupMade } from './make-backup';
import type { RestoreDone } from './restore';

/** Who asked for a backup. */
export type BackupTrigger = 'command-line' | 'console' | 'schedule';

/**
 * Told once a backup is complete or a restore has put a folder in place, never on a refusal:
 * the place to hook an audit log or a notification. An observer that throws is not the
 * backup's failure: callers log it and go on.
 */
export interface BackupObserver {
  backupMade?(made: BackupMade & { by: BackupTrigger; user?: string }): void;
  restoreDone?(done: RestoreDone): void;
}

/** Tells an observer, keeping its failure from turning a done backup into a failed one. */
export function tell(observe: () => void, warn: (message: string) => void): void {
  try {
    observe();
  } catch (err) {
    warn(`a backup observer failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
