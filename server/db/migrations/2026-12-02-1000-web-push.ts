import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * Web Push (issue 43 §1, docs/reader.md): each person's own browsers and phones.
 *
 * - `push_subscriptions`: one row per browser subscription (its push service endpoint, unique,
 *   and the keys the browser gave), owned by one account and gone with it; `filter` is JSON:
 *   which templates and tasks, and the lowest priority, that are pushed.
 * - `push_deliveries`: which subscription a push delivery goes to. A push is a row of
 *   `deliveries` of the send whose hosted message it announces (channel_type `web-push`), so it
 *   is claimed, retried and logged like every delivery; this row adds what `deliveries` has no
 *   column for. It goes with its delivery (retention); a removed subscription leaves it with a
 *   NULL, and the attempt says so.
 * - `push_fanouts`: one row per hosted message whose pushes were planned, written in the job
 *   that plans them: on PostgreSQL every process hears of every message, and only the first
 *   to write this row plans its pushes.
 *
 * The VAPID key pair is a `settings` row (`web-push-vapid`), its private key sealed, so it
 * needs no table here and `herald rotate-key` re-seals it with the other sealed settings.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('push_subscriptions', {
    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
    user_id: {
      type: DataTypes.INTEGER,
      allowNull: false,
      references: { model: 'users', key: 'id' },
      onDelete: 'CASCADE',
    },
    endpoint: { type: DataTypes.TEXT, allowNull: false, unique: true },
    p256dh: { type: DataTypes.STRING(128), allowNull: false },
    auth: { type: DataTypes.STRING(64), allowNull: false },
    device_name: { type: DataTypes.STRING(100), allowNull: false },
    filter: { type: DataTypes.TEXT, allowNull: false },
    last_push_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('push_subscriptions', ['user_id']);
  await qi.createTable('push_deliveries', {
    delivery_id: {
      type: DataTypes.INTEGER,
      primaryKey: true,
      references: { model: 'deliveries', key: 'id' },
      onDelete: 'CASCADE',
    },
    subscription_id: {
      type: DataTypes.INTEGER,
      allowNull: true,
      references: { model: 'push_subscriptions', key: 'id' },
      onDelete: 'SET NULL',
    },
    message_id: { type: DataTypes.INTEGER, allowNull: false },
    /** RFC 8030 Topic: the message's source and dedup key, hashed (push-payload.ts). */
    topic: { type: DataTypes.STRING(32), allowNull: false },
  });
  await qi.addIndex('push_deliveries', ['subscription_id']);
  await qi.createTable('push_fanouts', {
    message_id: { type: DataTypes.INTEGER, primaryKey: true },
  });
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.dropTable('push_fanouts');
  await qi.dropTable('push_deliveries');
  await qi.dropTable('push_subscriptions');
}
