import type { QueryInterface } from 'sequelize';

/**
 * Files sent with a message (issue 43 §2). `attachments` holds one row per stored file; the
 * bytes are in the data folder's `attachments/` under the row's id, which is also the secret
 * part of the file's URL (128 random bits and more, base64url). Times are epoch milliseconds,
 * the same integer on both dialects.
 *
 * - `send_id`: the send the file came with, set once the send is accepted (NULL for a moment
 *   before, and for good if Herald stopped in between: such a row expires like any other).
 *   No foreign key: retention deletes sends in bulk, and their files go with the next
 *   housekeeping pass, files first, rows after.
 * - `expires_at`: `created_at` plus the keepDays setting of that moment.
 *
 * `deliveries.attachments` lists the ids of a delivery's files (JSON text, NULL when none):
 * the claim hands them to the attempt with the rest of the delivery, on the first try and on
 * every retry, without a read of its own and with no window in which a delivery is claimable
 * before its send's files are linked.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query(
    `CREATE TABLE attachments (
       id VARCHAR(64) PRIMARY KEY,
       send_id INTEGER,
       position INTEGER NOT NULL,
       filename VARCHAR(255) NOT NULL,
       mime VARCHAR(255) NOT NULL,
       size BIGINT NOT NULL,
       inline BOOLEAN NOT NULL,
       source VARCHAR(16) NOT NULL,
       created_at BIGINT NOT NULL,
       expires_at BIGINT NOT NULL
     )`,
  );
  await qi.sequelize.query('CREATE INDEX attachments_send_id ON attachments (send_id)');
  await qi.sequelize.query('CREATE INDEX attachments_expires_at ON attachments (expires_at)');
  await qi.sequelize.query('ALTER TABLE deliveries ADD COLUMN attachments TEXT');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Not removeColumn: on SQLite Sequelize copies the table to drop a column.
  await qi.sequelize.query('ALTER TABLE deliveries DROP COLUMN attachments');
  await qi.sequelize.query('DROP TABLE attachments');
}
