import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * What the Message Nest importer needs: `import_map` remembers every imported row (so a second
 * run creates nothing twice), tasks and templates keep their Message Nest id (its legacy token
 * decodes to it) with the switch that lets that token send, and each send records which
 * credential opened it.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('import_map', {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true, allowNull: false },
    source_system: { type: DataTypes.STRING(32), allowNull: false },
    source_table: { type: DataTypes.STRING(64), allowNull: false },
    source_id: { type: DataTypes.STRING(128), allowNull: false },
    herald_table: { type: DataTypes.STRING(64), allowNull: false },
    herald_id: { type: DataTypes.INTEGER, allowNull: false },
    /** A public key the source gave the row (Message Nest's hosted-message preview key). */
    source_key: { type: DataTypes.STRING(128), allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('import_map', ['source_system', 'source_table', 'source_id'], {
    unique: true,
    name: 'import_map_source',
  });
  await qi.addIndex('import_map', ['herald_table', 'herald_id'], { name: 'import_map_herald' });
  for (const table of ['tasks', 'templates']) {
    await qi.addColumn(table, 'legacy_id', { type: DataTypes.STRING(64), allowNull: true });
    await qi.addColumn(table, 'accept_legacy_token', {
      type: DataTypes.BOOLEAN,
      allowNull: false,
      defaultValue: false,
    });
    await qi.addIndex(table, ['legacy_id'], { unique: true, name: `${table}_legacy_id` });
  }
  // Null on sends from before this column: which credential opened them was not recorded.
  await qi.addColumn('sends', 'credential', { type: DataTypes.STRING(16), allowNull: true });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeColumn('sends', 'credential');
  for (const table of ['tasks', 'templates']) {
    await qi.removeIndex(table, `${table}_legacy_id`);
    await qi.removeColumn(table, 'accept_legacy_token');
    await qi.removeColumn(table, 'legacy_id');
  }
  await qi.dropTable('import_map');
}
