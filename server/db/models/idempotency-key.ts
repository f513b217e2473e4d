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
  /**
   * The endpoint and the caller's credential (`v1:task_id:3`, `v2:token:5.0`), so the same key on
   * V1 and V2, or from two credentials, are different keys. Rows from before the credential was
   * added hold the endpoint alone and expire within 24 hours.
   */
  declare scope: string;
  declare key: string;
  /** Null while the first request is still being answered. */
  declare response: { code: number; body: unknown } | null;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    IdempotencyKey.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        // The first schema declared VARCHAR(16); SQLite does not enforce declared lengths, so
        // existing tables hold the longer scopes without a migration.
        scope: { type: DataTypes.STRING(64), allowNull: false },
        key: { type: DataTypes.STRING(255), allowNull: false },
        response: { type: DataTypes.JSON, allowNull: true },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'idempotency_keys', updatedAt: false },
    );
  }
}
