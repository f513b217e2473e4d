import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Quiet hours (issue 46 §1, docs/architecture.md "Quiet hours"): `quiet_hours_rules`, one row
 * per rule, owned by exactly one of an instance, a channel or a person (their own desktop
 * notifications and Web Push), and gone with its owner.
 *
 * - `timezone`: a canonical IANA name; `start_time` and `end_time` are wall-clock `HH:MM` there
 *   (an end not after the start is the next day's).
 * - `weekdays`: the days a window starts on, `0` Sunday … `6` Saturday, comma-separated.
 * - `action`: `hold`, `soften` or `drop`; `bypass_priority`: a message of this priority or
 *   above is not affected.
 *
 * A held delivery needs no column: it is `waiting` with its release time as next_attempt_at and
 * the reason as last_error, like any deferred delivery.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  const owner = (model: string) => ({
    type: DataTypes.INTEGER,
    allowNull: true,
    references: { model, key: 'id' },
    onDelete: 'CASCADE',
  });
  await qi.createTable('quiet_hours_rules', {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    instance_id: owner('instances'),
    channel_id: owner('channels'),
    user_id: owner('users'),
    timezone: { type: DataTypes.STRING(64), allowNull: false },
    weekdays: { type: DataTypes.STRING(32), allowNull: false },
    start_time: { type: DataTypes.STRING(5), allowNull: false },
    end_time: { type: DataTypes.STRING(5), allowNull: false },
    action: { type: DataTypes.STRING(8), allowNull: false },
    bypass_priority: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 5 },
    enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('quiet_hours_rules', ['instance_id']);
  await qi.addIndex('quiet_hours_rules', ['channel_id']);
  await qi.addIndex('quiet_hours_rules', ['user_id']);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('quiet_hours_rules');
}
