import type { QueryInterface } from 'sequelize';

/**
 * Digests (issue 46 §2, docs/send-api.md "Digests").
 *
 * - `digest_rules`: one per task, template or instance that collects its messages
 *   (`owner_kind`, `owner_id`): a fixed window (`window_minutes`, 1 … 1440) or a cron
 *   expression in an IANA zone, the priority at or above which a send skips the digest, and how
 *   many titles a digest lists.
 * - `digests`: one per window. At most one is `open` per task, template or instance
 *   (`scope`: `task:<id>`, `template:<id>`, `instance:<id>`; an instance's digest also names
 *   the instance, whose deliveries alone it carries) and digest key: the partial unique index is what two processes collecting the same key at once
 *   meet on. Closing sets `closed` and `send_id` (the digest's own send) in the transaction
 *   that stores that send, so a window is delivered once, whole, or not yet.
 * - `digest_sends`: the sends a window collected (a send whose instances collect apart is in
 *   one digest per instance).
 *
 * Times are epoch ms, as the delivery queue's are.
 */
const STATEMENTS = [
  `CREATE TABLE digest_rules (
     owner_kind TEXT NOT NULL,
     owner_id INTEGER NOT NULL,
     window_minutes INTEGER,
     cron TEXT,
     timezone TEXT,
     priority_threshold INTEGER NOT NULL DEFAULT 5,
     title_limit INTEGER NOT NULL DEFAULT 20,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (owner_kind, owner_id)
   )`,
  `CREATE TABLE digests (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     scope TEXT NOT NULL,
     digest_key TEXT NOT NULL,
     task_id INTEGER,
     template_id INTEGER,
     instance_id INTEGER,
     status TEXT NOT NULL DEFAULT 'open',
     window_until BIGINT NOT NULL,
     first_at BIGINT NOT NULL,
     last_at BIGINT NOT NULL,
     item_count INTEGER NOT NULL DEFAULT 0,
     send_id INTEGER,
     closed_at BIGINT,
     created_at BIGINT NOT NULL
   )`,
  `CREATE UNIQUE INDEX digests_one_open ON digests (scope, digest_key) WHERE status = 'open'`,
  `CREATE INDEX digests_due ON digests (status, window_until)`,
  `CREATE INDEX digests_send ON digests (send_id)`,
  `CREATE TABLE digest_sends (
     digest_id INTEGER NOT NULL,
     send_id INTEGER NOT NULL,
     created_at BIGINT NOT NULL,
     PRIMARY KEY (digest_id, send_id)
   )`,
  `CREATE INDEX digest_sends_send ON digest_sends (send_id)`,
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
  for (const table of ['digest_sends', 'digests', 'digest_rules']) {
    await qi.sequelize.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
