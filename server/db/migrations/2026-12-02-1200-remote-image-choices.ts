import type { QueryInterface } from 'sequelize';

/**
 * Each person's remote-image choices in the reader (issue 43 §3, docs/reader.md "Remote
 * images"), so a choice follows them to every device:
 *
 * - `scope` 'always' (`target_id` 0): `show` true or false overrides the install's
 *   `showRemoteImages` for this person; no row follows the install.
 * - `scope` 'message': show this hosted message's images (`target_id` the message id).
 * - `scope` 'task' or 'template': show the images of every message that source sends.
 *
 * A person's rows go with the person (ON DELETE CASCADE, as their read state does). A
 * message's row outlives the message harmlessly: ids are never reused. The statements are
 * the same on both dialects.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query(
    `CREATE TABLE remote_image_choices (
       user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
       scope VARCHAR(16) NOT NULL,
       target_id INTEGER NOT NULL,
       show BOOLEAN NOT NULL,
       PRIMARY KEY (user_id, scope, target_id)
     )`,
  );
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('DROP TABLE remote_image_choices');
}
