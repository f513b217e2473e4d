import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

import type { PlaceholderWarning } from '../../../contract';

/**
 * `suppressed`: accepted and recorded, not delivered, because an earlier send with the same
 * dedup key on the same task or template opened a window that was still open.
 */
export type SendStatus = 'pending' | 'sent' | 'partial' | 'failed' | 'suppressed' | 'collected';

/** What opened a send: Herald's token or task id, or an imported task's Message Nest ones. */
export type SendCredential = 'token' | 'legacy_token' | 'task_id' | 'legacy_task_id';

/** One accepted call to a send endpoint: what was asked, and its rolled-up outcome. */
export class Send extends Model<InferAttributes<Send>, InferCreationAttributes<Send>> {
  declare id: CreationOptional<number>;
  declare api: 'v1' | 'v2';
  declare taskId: number | null;
  declare templateId: number | null;
  /** Name at send time, so the log still reads well after the task or template is deleted. */
  declare sourceName: string;
  declare title: string;
  declare text: string | null;
  declare html: string | null;
  declare markdown: string | null;
  declare url: string | null;
  declare request: Record<string, unknown>;
  declare status: CreationOptional<SendStatus>;
  declare deliveryCount: CreationOptional<number>;
  /** The schedule whose run made this send; null for API calls. */
  declare scheduleId: CreationOptional<number | null>;
  /** Null on sends logged before credentials were recorded, and on imported logs. */
  declare credential: CreationOptional<SendCredential | null>;
  /** 1 … 5 as the sender gave it; null: none given (each channel's default). */
  declare priority: CreationOptional<number | null>;
  declare dedupKey: CreationOptional<string | null>;
  /** A suppressed send: the send whose dedup window it fell in. */
  declare suppressedBy: CreationOptional<number | null>;
  /** How many later sends were suppressed within this send's dedup window. */
  declare suppressedCount: CreationOptional<number>;
  /** V2's placeholder warnings, as the send was answered with them; null: none. */
  declare warnings: CreationOptional<PlaceholderWarning[] | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Send.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        api: { type: DataTypes.STRING(4), allowNull: false },
        taskId: { type: DataTypes.INTEGER, allowNull: true },
        templateId: { type: DataTypes.INTEGER, allowNull: true },
        sourceName: { type: DataTypes.STRING(100), allowNull: false, defaultValue: '' },
        title: { type: DataTypes.TEXT, allowNull: false },
        text: { type: DataTypes.TEXT, allowNull: true },
        html: { type: DataTypes.TEXT, allowNull: true },
        markdown: { type: DataTypes.TEXT, allowNull: true },
        url: { type: DataTypes.TEXT, allowNull: true },
        request: { type: DataTypes.JSON, allowNull: false },
        status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
        deliveryCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        scheduleId: { type: DataTypes.INTEGER, allowNull: true },
        credential: { type: DataTypes.STRING(16), allowNull: true },
        priority: { type: DataTypes.INTEGER, allowNull: true },
        dedupKey: { type: DataTypes.TEXT, allowNull: true },
        suppressedBy: { type: DataTypes.INTEGER, allowNull: true },
        suppressedCount: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
        warnings: { type: DataTypes.JSON, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'sends' },
    );
  }
}
