import type { AuditAction } from '../../../contract';
import { CLI_ACTOR } from './audit-log';
import { betterSqlite3 } from '../../db/better-sqlite3';

/**
 * Appends an entry to the audit log of a SQLite data file from a command-line tool that does
 * not open Herald's database layer (backup, restore). The running Herald, if any, sees it like
 * any other row: SQLite's WAL lets a second process append, and the busy timeout waits out a
 * write in progress. A file without the audit table (an older Herald) is left alone.
 */
export function appendCliAuditEntry(
  dbFile: string,
  entry: { action: AuditAction; targetType: string; targetName: string },
  now = Date.now(),
): boolean {
  const db = new (betterSqlite3())(dbFile, { fileMustExist: true, timeout: 10_000 });
  try {
    const table = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'audit_entries'`)
      .get();
    if (!table) return false;
    db.prepare(
      `INSERT INTO audit_entries
         (at, user_id, username, ip, user_agent, action, target_type, target_id, target_name, changes)
       VALUES (?, NULL, ?, NULL, NULL, ?, ?, NULL, ?, '[]')`,
    ).run(now, CLI_ACTOR.username, entry.action, entry.targetType, entry.targetName.slice(0, 200));
    return true;
  } finally {
    db.close();
  }
}
