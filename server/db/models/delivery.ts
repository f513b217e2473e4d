import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

import type { ContentType, Mentions } from '../../channels/channel-adapter';

/**
 * `suppressed`: finished without being sent, on purpose: a quiet-hours rule dropped it (issue 46
 * §1), its reason in last_error.
 */
export type DeliveryStatus = 'queued' | 'sending' | 'retrying' | 'sent' | 'failed' | 'suppressed';

/**
 * One message to one instance (and one recipient, for dynamic recipients). It carries the
 * rendered content, so a retry sends exactly what was accepted even if the template changed.
 */
export class Delivery extends Model<InferAttributes<Delivery>, InferCreationAttributes<Delivery>> {
  declare id: CreationOptional<number>;
  declare sendId: number;
  declare instanceId: number | null;
  declare channelId: number;
  declare channelType: string;
  declare contentType: ContentType;
  declare recipient: string | null;
  declare title: string;
  declare content: string;
  declare url: string | null;
  declare mentions: Mentions;
  /** The instance's own template code when it was accepted (Aliyun SMS); null: the channel's. */
  declare templateCode: CreationOptional<string | null>;
  /** Hosted deliveries: the share-link key the stored message gets (answered at accept time). */
  declare previewKey: CreationOptional<string | null>;
  /** 1 … 5, or null: the channel's own default. */
  declare priority: CreationOptional<number | null>;
  /** Sends with the same dedup key suppressed since the last delivered one (docs/send-api.md). */
  declare repeats: CreationOptional<number>;
  declare status: CreationOptional<DeliveryStatus>;
  declare attempts: CreationOptional<number>;
  /** Epoch ms; the dispatcher claims rows whose time has come. */
  declare nextAttemptAt: number;
  /** Epoch ms until which a claim holds; a claim left by a dead process expires. */
  declare leaseUntil: CreationOptional<number | null>;
  declare lastError: CreationOptional<string | null>;
  declare reply: CreationOptional<string | null>;
  declare sentAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Delivery.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        sendId: { type: DataTypes.INTEGER, allowNull: false },
        instanceId: { type: DataTypes.INTEGER, allowNull: true },
        channelId: { type: DataTypes.INTEGER, allowNull: false },
        channelType: { type: DataTypes.STRING(32), allowNull: false },
        contentType: { type: DataTypes.STRING(16), allowNull: false },
        recipient: { type: DataTypes.TEXT, allowNull: true },
        title: { type: DataTypes.TEXT, allowNull: false },
        content: { type: DataTypes.TEXT, allowNull: false },
        url: { type: DataTypes.TEXT, allowNull: true },
        mentions: { type: DataTypes.JSON, allowNull: false },
        templateCode: { type: DataTypes.STRING(64), allowNull: true },
        previewKey: { type: DataTypes.STRING(64), allowNull: true },
        priority: { type: DataTypes.INTEGER, allowNull: true },
        repeats: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'queued' },
        attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        nextAttemptAt: { type: DataTypes.BIGINT, allowNull: false },
        leaseUntil: { type: DataTypes.BIGINT, allowNull: true },
        lastError: { type: DataTypes.TEXT, allowNull: true },
        reply: { type: DataTypes.TEXT, allowNull: true },
        sentAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'deliveries' },
    );
  }
}
