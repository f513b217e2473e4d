import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

export type CatchUp = 'once' | 'skip';

/**
 * A message sent on a cron expression or once at a given time, through a task (V1 content) or
 * a template (placeholder values). Times are epoch milliseconds.
 */
export class Schedule extends Model<InferAttributes<Schedule>, InferCreationAttributes<Schedule>> {
  declare id: CreationOptional<number>;
  declare name: string;
  declare taskId: number | null;
  declare templateId: number | null;
  declare cron: string | null;
  declare runAt: number | null;
  /** IANA zone the cron expression is read in. */
  declare timezone: string;
  declare title: string;
  declare text: string | null;
  declare html: string | null;
  declare markdown: string | null;
  declare url: string | null;
  declare atMobiles: string[];
  declare atUserIds: string[];
  declare atAll: boolean;
  declare recipients: string[];
  declare placeholders: Record<string, string>;
  declare enabled: boolean;
  declare catchUp: CatchUp;
  /** The due time the scheduler claims next; null when disabled or finished. */
  declare nextRunAt: number | null;
  declare lastRunAt: number | null;
  declare lastSendId: number | null;
  declare lastError: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    // SQLite hands BIGINT back as a number, but a string on other dialects: read both.
    const epoch = (name: string) => ({
      type: DataTypes.BIGINT,
      allowNull: true,
      get(this: Schedule) {
        const raw = this.getDataValue(name as 'runAt') as unknown;
        return raw === null || raw === undefined ? null : Number(raw);
      },
    });
    Schedule.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        name: { type: DataTypes.STRING(100), allowNull: false },
        taskId: { type: DataTypes.INTEGER, allowNull: true },
        templateId: { type: DataTypes.INTEGER, allowNull: true },
        cron: { type: DataTypes.STRING(255), allowNull: true },
        runAt: epoch('runAt'),
        timezone: { type: DataTypes.STRING(64), allowNull: false },
        title: { type: DataTypes.TEXT, allowNull: false },
        text: { type: DataTypes.TEXT, allowNull: true },
        html: { type: DataTypes.TEXT, allowNull: true },
        markdown: { type: DataTypes.TEXT, allowNull: true },
        url: { type: DataTypes.TEXT, allowNull: true },
        atMobiles: { type: DataTypes.JSON, allowNull: false, defaultValue: [] },
        atUserIds: { type: DataTypes.JSON, allowNull: false, defaultValue: [] },
        atAll: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        recipients: { type: DataTypes.JSON, allowNull: false, defaultValue: [] },
        placeholders: { type: DataTypes.JSON, allowNull: false, defaultValue: {} },
        enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        catchUp: { type: DataTypes.STRING(8), allowNull: false, defaultValue: 'once' },
        nextRunAt: epoch('nextRunAt'),
        lastRunAt: epoch('lastRunAt'),
        lastSendId: { type: DataTypes.INTEGER, allowNull: true },
        lastError: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'schedules' },
    );
  }
}
