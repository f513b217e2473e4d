import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

import type { ContentType } from '../../channels/channel-adapter';

/** Binds a channel to exactly one task or one template. */
export class Instance extends Model<InferAttributes<Instance>, InferCreationAttributes<Instance>> {
  declare id: CreationOptional<number>;
  declare taskId: number | null;
  declare templateId: number | null;
  declare channelId: number;
  declare contentType: ContentType;
  declare enabled: CreationOptional<boolean>;
  declare recipient: CreationOptional<string>;
  declare dynamicRecipients: CreationOptional<boolean>;
  declare atMobiles: CreationOptional<string>;
  declare atAll: CreationOptional<boolean>;
  /** Kinds that take one (Aliyun SMS): this instance's template code, over its channel's. */
  declare templateCode: CreationOptional<string | null>;
  /** Hosted instances: each message gets its public share link when its send is accepted. */
  declare publicLink: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Instance.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        taskId: { type: DataTypes.INTEGER, allowNull: true },
        templateId: { type: DataTypes.INTEGER, allowNull: true },
        channelId: { type: DataTypes.INTEGER, allowNull: false },
        contentType: { type: DataTypes.STRING(16), allowNull: false },
        enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        recipient: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        dynamicRecipients: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        atMobiles: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        atAll: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        templateCode: { type: DataTypes.STRING(64), allowNull: true },
        publicLink: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'instances' },
    );
  }
}
