import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export class Task extends Model<InferAttributes<Task>, InferCreationAttributes<Task>> {
  declare id: CreationOptional<number>;
  declare name: string;
  /** Bumped by token rotation; tokens carry it, so older tokens stop opening the task. */
  declare tokenGeneration: CreationOptional<number>;
  /** The Message Nest id this was imported from (its legacy token decodes to it), or null. */
  declare legacyId: CreationOptional<string | null>;
  /** Whether the Message Nest token (and, with task_id on, the old id) may send. Off by default. */
  declare acceptLegacyToken: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Task.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        name: { type: DataTypes.STRING(100), allowNull: false, unique: true },
        tokenGeneration: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        legacyId: { type: DataTypes.STRING(64), allowNull: true, unique: true },
        acceptLegacyToken: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'tasks' },
    );
  }
}
