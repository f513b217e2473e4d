import type { QueryInterface } from 'sequelize';

/**
 * Read state per person (issue 25, docs/console-api.md "Read state is per person").
 *
 * - `hosted_message_read_marks`: one row per user: `read_through`, the watermark (every
 *   message with an id up to it is read unless an exception says otherwise), and `below`, how
 *   many messages exist with an id up to it, so the unread count is the messages counter
 *   (history_counters) minus `below`, corrected by the exceptions, without counting messages.
 * - `hosted_message_reads`: the exceptions: above the watermark a row says read, at or below
 *   it a row with `read` false says unread. Read-all moves the watermark and deletes the
 *   user's exceptions below it.
 *
 * A user's rows go with the user (ON DELETE CASCADE, as sessions do). A message's rows go with
 * the message by trigger, which also lowers `below` of every watermark above it: the console's
 * delete, retention's prune and anything else that deletes a hosted message. (No foreign key
 * on the message: deleting many messages would check each row, and the trigger has to run
 * anyway for `below`.)
 *
 * The old global `read_at` is carried over as the read state of every existing user, with the
 * watermark that needs the fewer exceptions: at the newest message (the unread ones become
 * exceptions) or just below the oldest unread one (the read ones above it become exceptions).
 * The column stays, no longer consulted: SQLite cannot drop a column that an index and the
 * history triggers name without rebuilding them, and migrations that shipped are not edited.
 */
const TABLES = (bigint: string) => [
  `CREATE TABLE hosted_message_read_marks (
     user_id INTEGER PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     read_through INTEGER NOT NULL,
     below ${bigint} NOT NULL
   )`,
  `CREATE TABLE hosted_message_reads (
     user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     message_id INTEGER NOT NULL,
     read BOOLEAN NOT NULL,
     PRIMARY KEY (user_id, message_id)
   )`,
  // The delete trigger finds a message's rows by it.
  'CREATE INDEX hosted_message_reads_message ON hosted_message_reads (message_id)',
];

const SQLITE_TRIGGER = `CREATE TRIGGER hosted_messages_reads_delete AFTER DELETE ON hosted_messages
   BEGIN
     DELETE FROM hosted_message_reads WHERE message_id = old.id;
     UPDATE hosted_message_read_marks SET below = below - 1 WHERE read_through >= old.id;
   END`;

// Statement-level like the history triggers (postgres/history-index-schema.ts): one pass per
// prune batch, not one per row.
const POSTGRES_TRIGGER = [
  `CREATE FUNCTION herald_hosted_message_reads_delete() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     DELETE FROM hosted_message_reads WHERE message_id IN (SELECT id FROM old_rows);
     UPDATE hosted_message_read_marks k
       SET below = k.below - (SELECT count(*) FROM old_rows o WHERE o.id <= k.read_through)
       WHERE k.read_through >= (SELECT min(id) FROM old_rows);
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER hosted_messages_reads_delete AFTER DELETE ON hosted_messages
     REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
     EXECUTE FUNCTION herald_hosted_message_reads_delete()`,
];

/** The carried-over state: per user the cheaper watermark, its `below`, its exceptions. */
const CARRY_OVER = [
  `CREATE TEMPORARY TABLE carry_mark AS
     SELECT
       (SELECT coalesce(max(id), 0) FROM hosted_messages) AS newest,
       (SELECT min(id) FROM hosted_messages WHERE read_at IS NULL) AS oldest_unread,
       (SELECT count(*) FROM hosted_messages WHERE read_at IS NULL) AS unread,
       (SELECT count(*) FROM hosted_messages WHERE read_at IS NOT NULL
          AND id > (SELECT min(id) FROM hosted_messages WHERE read_at IS NULL)) AS read_above`,
  // At the newest message when nothing is unread or the unread ones are the fewer.
  `INSERT INTO hosted_message_read_marks (user_id, read_through, below)
     SELECT u.id,
       CASE WHEN c.oldest_unread IS NULL OR c.unread <= c.read_above THEN c.newest
            ELSE c.oldest_unread - 1 END,
       CASE WHEN c.oldest_unread IS NULL OR c.unread <= c.read_above
            THEN (SELECT count(*) FROM hosted_messages)
            ELSE (SELECT count(*) FROM hosted_messages WHERE id < c.oldest_unread) END
     FROM users u CROSS JOIN carry_mark c`,
  `INSERT INTO hosted_message_reads (user_id, message_id, read)
     SELECT k.user_id, m.id, m.read_at IS NOT NULL
     FROM hosted_message_read_marks k CROSS JOIN hosted_messages m
     WHERE (m.id <= k.read_through AND m.read_at IS NULL)
        OR (m.id > k.read_through AND m.read_at IS NOT NULL)`,
  'DROP TABLE carry_mark',
];

export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const postgres = qi.sequelize.getDialect() === 'postgres';
  await qi.sequelize.transaction(async (transaction) => {
    for (const sql of [
      ...TABLES(postgres ? 'BIGINT' : 'INTEGER'),
      ...(postgres ? POSTGRES_TRIGGER : [SQLITE_TRIGGER]),
      ...CARRY_OVER,
    ]) {
      await qi.sequelize.query(sql, { transaction });
    }
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const sql of [
    'DROP TRIGGER IF EXISTS hosted_messages_reads_delete' +
      (qi.sequelize.getDialect() === 'postgres' ? ' ON hosted_messages' : ''),
    'DROP FUNCTION IF EXISTS herald_hosted_message_reads_delete()',
    'DROP TABLE IF EXISTS hosted_message_reads',
    'DROP TABLE IF EXISTS hosted_message_read_marks',
  ]) {
    if (sql.startsWith('DROP FUNCTION') && qi.sequelize.getDialect() !== 'postgres') continue;
    await qi.sequelize.query(sql);
  }
}
