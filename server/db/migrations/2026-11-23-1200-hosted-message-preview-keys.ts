import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Share links: a hosted message opened without login by an unguessable key. Existing messages
 * get no key (NULL) until someone asks for a link. Deliveries carry the key chosen when the
 * send was accepted, so the link answered to the caller is the one the stored message gets.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.addColumn('hosted_messages', 'preview_key', {
    type: DataTypes.STRING(64),
    allowNull: true,
  });
  // SQLite cannot add a UNIQUE column; a unique index does the same, and NULLs never collide.
  await qi.addIndex('hosted_messages', ['preview_key'], {
    unique: true,
    name: 'hosted_messages_preview_key',
  });
  await qi.addColumn('deliveries', 'preview_key', {
    type: DataTypes.STRING(64),
    allowNull: true,
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeColumn('deliveries', 'preview_key');
  await qi.removeIndex('hosted_messages', 'hosted_messages_preview_key');
  await qi.removeColumn('hosted_messages', 'preview_key');
}
