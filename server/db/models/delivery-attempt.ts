import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/** `suppressed`: not sent, on purpose (a quiet-hours rule's drop). */
export type AttemptOutcome = 'sent' | 'transient' | 'permanent' | 'suppressed';

export class DeliveryAttempt extends Model<
  InferAttributes<DeliveryAttempt>,
  InferCreationAttributes<DeliveryAttempt>
> {
  declare id: CreationOptional<number>;
  declare deliveryId: number;
  declare attempt: number;
  declare outcome: AttemptOutcome;
  declare error: string | null;
  /** The platform's answer (truncated), shown in the send log. */
  declare reply: string | null;
  declare durationMs: number;
  declare startedAt: Date;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    DeliveryAttempt.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        deliveryId: { type: DataTypes.INTEGER, allowNull: false },
        attempt: { type: DataTypes.INTEGER, allowNull: false },
        outcome: { type: DataTypes.STRING(16), allowNull: false },
        error: { type: DataTypes.TEXT, allowNull: true },
        reply: { type: DataTypes.TEXT, allowNull: true },
        durationMs: { type: DataTypes.INTEGER, allowNull: false },
        startedAt: { type: DataTypes.DATE, allowNull: false },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'delivery_attempts', updatedAt: false },
    );
  }
}
