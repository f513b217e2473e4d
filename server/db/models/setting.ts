import {
  DataTypes,
  Model,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export class Setting extends Model<InferAttributes<Setting>, InferCreationAttributes<Setting>> {
  declare key: string;
  declare value: unknown;

  static initModel(sequelize: Sequelize): void {
    Setting.init(
      {
        key: { type: DataTypes.STRING(100), primaryKey: true },
        value: { type: DataTypes.JSON, allowNull: false },
      },
      { sequelize, tableName: 'settings', timestamps: false },
    );
  }
}
