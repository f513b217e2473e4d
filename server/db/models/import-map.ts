import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/**
 * One row another system's data became in Herald: an import looks its source rows up here
 * first, so running it again creates nothing twice.
 */
export class ImportMap extends Model<
  InferAttributes<ImportMap>,
  InferCreationAttributes<ImportMap>
> {
  declare id: CreationOptional<number>;
  /** `message-nest`. */
  declare sourceSystem: string;
  /** The source's table without its prefix (`send_ways`, `hosted_message`…). */
  declare sourceTable: string;
  declare sourceId: string;
  /** `channels`, `tasks`, `templates`, `instances`, `hosted_messages`, `sends`, or a schedule table. */
  declare heraldTable: string;
  declare heraldId: number;
  /** A public key the source gave the row: Message Nest's hosted-message preview key. */
  declare sourceKey: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    ImportMap.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        sourceSystem: { type: DataTypes.STRING(32), allowNull: false },
        sourceTable: { type: DataTypes.STRING(64), allowNull: false },
        sourceId: { type: DataTypes.STRING(128), allowNull: false },
        heraldTable: { type: DataTypes.STRING(64), allowNull: false },
        heraldId: { type: DataTypes.INTEGER, allowNull: false },
        sourceKey: { type: DataTypes.STRING(128), allowNull: true },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'import_map', updatedAt: false },
    );
  }
}
