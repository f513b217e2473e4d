import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

import type { PushFilter } from '../../../contract/console/push';

/**
 * One browser a person subscribed to Web Push (docs/reader.md): its push service endpoint and
 * the keys its payloads are encrypted to. The keys are the browser's public half and a
 * per-subscription secret the push service never sees; they are useless without the endpoint
 * and Herald's VAPID private key, which is the sealed part (a `settings` row).
 */
export class PushSubscription extends Model<
  InferAttributes<PushSubscription>,
  InferCreationAttributes<PushSubscription>
> {
  declare id: CreationOptional<number>;
  declare userId: number;
  declare endpoint: string;
  declare p256dh: string;
  declare auth: string;
  declare deviceName: string;
  declare filter: PushFilter;
  declare lastPushAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    PushSubscription.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        userId: { type: DataTypes.INTEGER, allowNull: false },
        endpoint: { type: DataTypes.TEXT, allowNull: false, unique: true },
        p256dh: { type: DataTypes.STRING(128), allowNull: false },
        auth: { type: DataTypes.STRING(64), allowNull: false },
        deviceName: { type: DataTypes.STRING(100), allowNull: false },
        filter: {
          type: DataTypes.TEXT,
          allowNull: false,
          // Stored as JSON text; absent (a partial update's instance) reads as is.
          get() {
            const raw = this.getDataValue('filter') as unknown;
            return (typeof raw === 'string' ? JSON.parse(raw) : raw) as PushFilter;
          },
          set(value: PushFilter) {
            this.setDataValue('filter', JSON.stringify(value) as unknown as PushFilter);
          },
        },
        lastPushAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'push_subscriptions' },
    );
  }
}
