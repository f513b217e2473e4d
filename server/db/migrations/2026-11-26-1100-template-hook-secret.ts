import type { QueryInterface } from 'sequelize';

/**
 * A template's `hook_secret` (issue 24, inbound hooks, docs/hooks.md): the key a sender signs
 * its hook bodies with, sealed like a channel's secrets (`enc:v1:…`, server/crypto/secret-box.ts).
 * NULL, the value of every existing template, means the token alone authorises, as in V2. The
 * statement is the same on both dialects.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.sequelize.query('ALTER TABLE templates ADD COLUMN hook_secret TEXT');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  // Not removeColumn: on SQLite Sequelize copies the table to drop a column, and the copy
  // would lose the history triggers.
  await qi.sequelize.query('ALTER TABLE templates DROP COLUMN hook_secret');
}
