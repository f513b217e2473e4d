import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

import type { ContentType } from '../../channels/channel-adapter';

/** A message kept on Herald for people to read in the console. Never purged automatically. */
export class HostedMessage extends Model<
  InferAttributes<HostedMessage>,
  InferCreationAttributes<HostedMessage>
> {
  declare id: CreationOptional<number>;
  declare channelId: number | null;
  declare deliveryId: number | null;
  declare title: string;
  declare content: string;
  declare format: ContentType;
  declare url: string | null;
  /** The share link's key (see domain/preview-keys); null: no link, or revoked. */
  declare previewKey: CreationOptional<string | null>;
  /** Its delivery's priority (1 … 5; null: none given): the reader sorts and marks 4 and 5. */
  declare priority: CreationOptional<number | null>;
  declare readAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    HostedMessage.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        channelId: { type: DataTypes.INTEGER, allowNull: true },
        deliveryId: { type: DataTypes.INTEGER, allowNull: true, unique: true },
        title: { type: DataTypes.TEXT, allowNull: false },
        content: { type: DataTypes.TEXT, allowNull: false },
        format: { type: DataTypes.STRING(16), allowNull: false },
        url: { type: DataTypes.TEXT, allowNull: true },
        previewKey: { type: DataTypes.STRING(64), allowNull: true, unique: true },
        priority: { type: DataTypes.INTEGER, allowNull: true },
        readAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'hosted_messages' },
    );
  }
}
