import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export interface PlaceholderDefinition {
  key: string;
  label: string;
  default?: string;
}

export class Template extends Model<InferAttributes<Template>, InferCreationAttributes<Template>> {
  declare id: CreationOptional<number>;
  declare name: string;
  declare description: CreationOptional<string>;
  declare enabled: CreationOptional<boolean>;
  declare placeholders: CreationOptional<PlaceholderDefinition[]>;
  declare text: CreationOptional<string | null>;
  declare html: CreationOptional<string | null>;
  declare markdown: CreationOptional<string | null>;
  /** Comma-separated, as the contract's console form has it. */
  declare atMobiles: CreationOptional<string>;
  declare atUserIds: CreationOptional<string>;
  declare atAll: CreationOptional<boolean>;
  declare tokenGeneration: CreationOptional<number>;
  /** The Message Nest id this was imported from (its legacy token decodes to it), or null. */
  declare legacyId: CreationOptional<string | null>;
  /** Whether the Message Nest token (and, with task_id on, the old id) may send. Off by default. */
  declare acceptLegacyToken: CreationOptional<boolean>;
  /** The inbound hooks' signing key, sealed (`enc:v1:…`), or null: the token alone authorises. */
  declare hookSecret: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Template.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        name: { type: DataTypes.STRING(100), allowNull: false, unique: true },
        description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        placeholders: { type: DataTypes.JSON, allowNull: false, defaultValue: [] },
        text: { type: DataTypes.TEXT, allowNull: true },
        html: { type: DataTypes.TEXT, allowNull: true },
        markdown: { type: DataTypes.TEXT, allowNull: true },
        atMobiles: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        atUserIds: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        atAll: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        tokenGeneration: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        legacyId: { type: DataTypes.STRING(64), allowNull: true, unique: true },
        acceptLegacyToken: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        hookSecret: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'templates' },
    );
  }
}
