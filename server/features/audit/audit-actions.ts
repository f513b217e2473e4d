import type { AuditChange } from '../../../contract';
import { CLI_ACTOR, type AuditActor, type AuditLog } from './audit-log';

/** What an import created, kind by kind: `created.channels: null → 3`. */
export function importedChanges(report: unknown): AuditChange[] {
  const kinds = (report as { counts?: Record<string, { created?: unknown }> } | null)?.counts ?? {};
  return Object.entries(kinds)
    .filter(([, c]) => typeof c.created === 'number' && c.created > 0)
    .map(([kind, c]) => ({ field: `created.${kind}`, before: null, after: c.created }));
}

/** A Message Nest import that was not a dry run, from the console or the command line. */
export function recordImport(audit: AuditLog, report: unknown, who: AuditActor = CLI_ACTOR) {
  return audit.record({
    who,
    action: 'import.message-nest',
    targetType: 'import',
    targetName: 'Message Nest',
    changes: importedChanges(report),
  });
}

/**
 * A backup taken or restored (`backup.create`, `backup.restore`), named by its file: for the
 * backup and restore commands and routes to call once the operation has succeeded.
 */
export function recordBackup(
  audit: AuditLog,
  action: 'backup.create' | 'backup.restore',
  file: string,
  who: AuditActor = CLI_ACTOR,
) {
  return audit.record({ who, action, targetType: 'backup', targetName: file });
}
