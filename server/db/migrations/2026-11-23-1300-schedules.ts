import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Scheduled messages, and `sends.schedule_id` linking each run to its schedule. The column is
 * added without a foreign key: SQLite would rebuild the sends table for one (losing its
 * triggers and indexes), and a send keeps its schedule's id after the schedule is deleted.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('schedules', {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true, allowNull: false },
    name: { type: DataTypes.STRING(100), allowNull: false },
    // A deleted task or template leaves the schedule in place (disabled at its next run), so
    // the administrator sees why it stopped instead of it vanishing.
    task_id: {
      type: DataTypes.INTEGER,
      allowNull: true,
      references: { model: 'tasks', key: 'id' },
      onDelete: 'SET NULL',
    },
    template_id: {
      type: DataTypes.INTEGER,
      allowNull: true,
      references: { model: 'templates', key: 'id' },
      onDelete: 'SET NULL',
    },
    cron: { type: DataTypes.STRING(255), allowNull: true },
    run_at: { type: DataTypes.BIGINT, allowNull: true },
    timezone: { type: DataTypes.STRING(64), allowNull: false },
    title: { type: DataTypes.TEXT, allowNull: false },
    text: { type: DataTypes.TEXT, allowNull: true },
    html: { type: DataTypes.TEXT, allowNull: true },
    markdown: { type: DataTypes.TEXT, allowNull: true },
    url: { type: DataTypes.TEXT, allowNull: true },
    at_mobiles: { type: DataTypes.JSON, allowNull: false },
    at_user_ids: { type: DataTypes.JSON, allowNull: false },
    at_all: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    recipients: { type: DataTypes.JSON, allowNull: false },
    placeholders: { type: DataTypes.JSON, allowNull: false },
    enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    catch_up: { type: DataTypes.STRING(8), allowNull: false, defaultValue: 'once' },
    // Epoch milliseconds, like deliveries.next_attempt_at: the run is claimed by comparing it.
    next_run_at: { type: DataTypes.BIGINT, allowNull: true },
    last_run_at: { type: DataTypes.BIGINT, allowNull: true },
    last_send_id: { type: DataTypes.INTEGER, allowNull: true },
    last_error: { type: DataTypes.TEXT, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('schedules', ['enabled', 'next_run_at']);
  await qi.addIndex('schedules', ['task_id']);
  await qi.addIndex('schedules', ['template_id']);
  await qi.addColumn('sends', 'schedule_id', { type: DataTypes.INTEGER, allowNull: true });
  await qi.addIndex('sends', ['schedule_id']);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.removeIndex('sends', ['schedule_id']);
  await qi.removeColumn('sends', 'schedule_id');
  await qi.dropTable('schedules');
}
