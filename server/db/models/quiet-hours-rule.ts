import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

import type { QuietHoursAction } from '../../../contract/console/quiet-hours';

/**
 * A quiet-hours rule (issue 46 §1): owned by exactly one of an instance, a channel or a person
 * (migration 2026-12-03-1200-quiet-hours). Its writes move the configuration version, so the
 * pipeline's cached rules (features/quiet-hours/quiet-hours-lookup.ts) are read again here, in
 * the delivery thread and in other processes.
 */
export class QuietHoursRuleRow extends Model<
  InferAttributes<QuietHoursRuleRow>,
  InferCreationAttributes<QuietHoursRuleRow>
> {
  declare id: CreationOptional<number>;
  declare instanceId: number | null;
  declare channelId: number | null;
  declare userId: number | null;
  declare timezone: string;
  /** 0 Sunday … 6 Saturday. */
  declare weekdays: number[];
  declare startTime: string;
  declare endTime: string;
  declare action: QuietHoursAction;
  declare bypassPriority: number;
  declare enabled: boolean;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    QuietHoursRuleRow.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        instanceId: { type: DataTypes.INTEGER, allowNull: true },
        channelId: { type: DataTypes.INTEGER, allowNull: true },
        userId: { type: DataTypes.INTEGER, allowNull: true },
        timezone: { type: DataTypes.STRING(64), allowNull: false },
        weekdays: {
          type: DataTypes.STRING(32),
          allowNull: false,
          // Stored as "1,2,3"; absent (a partial update's instance) reads as is.
          get() {
            const raw = this.getDataValue('weekdays') as unknown;
            if (typeof raw !== 'string') return raw as number[];
            return raw === '' ? [] : raw.split(',').map(Number);
          },
          set(value: number[]) {
            const days = [...new Set(value)].sort((a, b) => a - b);
            this.setDataValue('weekdays', days.join(',') as unknown as number[]);
          },
        },
        startTime: { type: DataTypes.STRING(5), allowNull: false },
        endTime: { type: DataTypes.STRING(5), allowNull: false },
        action: { type: DataTypes.STRING(8), allowNull: false },
        bypassPriority: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 5 },
        enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'quiet_hours_rules' },
    );
  }
}
