import type { QueryInterface } from 'sequelize';

/**
 * The audit log (issue 25, docs/running-for-a-team.md "Audit log"): one row per console change,
 * sign-in and command-line operation (server/features/audit/audit-log.ts). `at` is epoch ms,
 * as the delivery queue's times are; `target_id` is text, so a backup's file or an import can
 * be named as well as a row id; `changes` is the JSON list of fields before → after, secrets
 * only as changed. The console lists it newest first, whole or by user or action: each index
 * ends with (at, id), so a page of the newest 50 is read off the end of one index however many
 * rows there are. Retention deletes from the oldest `at` (server/db/history/retention.ts).
 */
const STATEMENTS = [
  `CREATE TABLE audit_entries (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     at BIGINT NOT NULL,
     user_id INTEGER,
     username TEXT NOT NULL,
     ip TEXT,
     user_agent TEXT,
     action TEXT NOT NULL,
     target_type TEXT NOT NULL,
     target_id TEXT,
     target_name TEXT,
     changes TEXT NOT NULL DEFAULT '[]'
   )`,
  'CREATE INDEX audit_entries_at ON audit_entries (at, id)',
  'CREATE INDEX audit_entries_username ON audit_entries (username, at, id)',
  'CREATE INDEX audit_entries_action ON audit_entries (action, at, id)',
];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const postgres = qi.sequelize.getDialect() === 'postgres';
  for (const statement of STATEMENTS) {
    await qi.sequelize.query(
      postgres
        ? statement.replace('INTEGER PRIMARY KEY AUTOINCREMENT', 'BIGSERIAL PRIMARY KEY')
        : statement,
    );
  }
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('DROP TABLE IF EXISTS audit_entries');
}
