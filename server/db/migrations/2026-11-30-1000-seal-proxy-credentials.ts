import type { QueryInterface } from 'sequelize';

import type { MigrationHelpers } from '../migrate';

/**
 * A channel's proxy URL with `user:password@` in it is a secret, sealed at rest since it was
 * recognised as one; versions before stored it in clear. This seals what they left, once, as
 * the data folder is upgraded (it used to run at every start). Sealing needs the server key,
 * which db/ does not hold: the caller lends `helpers.sealProxy` (the channel config with its
 * proxy sealed, the same object when there is nothing to seal). Nothing to seal needs no key.
 */
export async function up({
  context: qi,
  helpers,
}: {
  context: QueryInterface;
  helpers: MigrationHelpers;
}): Promise<void> {
  const sequelize = qi.sequelize;
  const [rows] = await sequelize.query('SELECT id, config FROM channels');
  const changed: Array<{ id: number; config: Record<string, unknown> }> = [];
  for (const row of rows as Array<{ id: number; config: unknown }>) {
    // SQLite hands JSON back as text, PostgreSQL as a value.
    const config = (typeof row.config === 'string' ? JSON.parse(row.config) : row.config) as Record<
      string,
      unknown
    > | null;
    if (!config || typeof config !== 'object') continue;
    if (!helpers.sealProxy) {
      if (typeof config.proxy === 'string' && /\/\/[^/@]+@/.test(config.proxy)) {
        throw new Error(
          'a channel holds a proxy password in clear, and sealing it needs the server key: start Herald on this data folder (or restore it) to upgrade it',
        );
      }
      continue;
    }
    const sealed = helpers.sealProxy(config);
    if (sealed !== config) changed.push({ id: row.id, config: sealed });
  }
  if (changed.length === 0) return;
  // secure_delete zeroes the bytes the old rows leave behind, so the password is not kept in
  // the file's free space. PostgreSQL has no such switch: the old row versions stay until
  // (auto)vacuum reuses them.
  const sqlite = sequelize.getDialect() === 'sqlite';
  if (sqlite) await sequelize.query('PRAGMA secure_delete=ON');
  try {
    await sequelize.transaction(async (transaction) => {
      for (const { id, config } of changed) {
        await sequelize.query('UPDATE channels SET config = ? WHERE id = ?', {
          replacements: [JSON.stringify(config), id],
          transaction,
        });
      }
    });
  } finally {
    if (sqlite) await sequelize.query('PRAGMA secure_delete=OFF');
  }
}

export async function down(): Promise<void> {
  // Sealed secrets stay sealed: an older version opens them as it opens any other.
}
