import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export class IdempotencyKey extends Model<
  InferAttributes<IdempotencyKey>,
  InferCreationAttributes<IdempotencyKey>
> {
  declare id: CreationOptional<number>;
  /** The endpoint, so the same key on V1 and V2 are two keys. */
  declare scope: string;
  declare key: string;
  /** Null while the first request is still being answered. */
  declare response: { code: number; body: unknown } | null;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    IdempotencyKey.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        scope: { type: DataTypes.STRING(16), allowNull: false },
        key: { type: DataTypes.STRING(255), allowNull: false },
        response: { type: DataTypes.JSON, allowNull: true },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'idempotency_keys', updatedAt: false },
    );
  }
}
