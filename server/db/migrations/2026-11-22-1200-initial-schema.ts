import { DataTypes, type QueryInterface } from 'sequelize';

const id = { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true, allowNull: false };
const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

/** Creates every table of the first release. */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
  await qi.createTable('users', {
    id,
    username: { type: DataTypes.STRING(100), allowNull: false, unique: true },
    password_hash: { type: DataTypes.STRING(255), allowNull: false },
    ...timestamps,
  });
  await qi.createTable('sessions', {
    id: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    user_id: {
      type: DataTypes.INTEGER,
      allowNull: false,
      references: { model: 'users', key: 'id' },
      onDelete: 'CASCADE',
    },
    expires_at: { type: DataTypes.DATE, allowNull: false },
    ...timestamps,
  });
  await qi.addIndex('sessions', ['expires_at']);
  await qi.createTable('settings', {
    key: { type: DataTypes.STRING(100), primaryKey: true, allowNull: false },
    value: { type: DataTypes.JSON, allowNull: false },
  });
  await qi.createTable('channels', {
    id,
    name: { type: DataTypes.STRING(100), allowNull: false },
    description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    type: { type: DataTypes.STRING(32), allowNull: false },
    config: { type: DataTypes.JSON, allowNull: false },
    ...timestamps,
  });
  await qi.createTable('tasks', {
    id,
    name: { type: DataTypes.STRING(100), allowNull: false, unique: true },
    token_generation: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    ...timestamps,
  });
  await qi.createTable('templates', {
    id,
    name: { type: DataTypes.STRING(100), allowNull: false, unique: true },
    description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    placeholders: { type: DataTypes.JSON, allowNull: false },
    text: { type: DataTypes.TEXT, allowNull: true },
    html: { type: DataTypes.TEXT, allowNull: true },
    markdown: { type: DataTypes.TEXT, allowNull: true },
    at_mobiles: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    at_user_ids: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    at_all: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    token_generation: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    ...timestamps,
  });
  await qi.createTable('instances', {
    id,
    task_id: {
      type: DataTypes.INTEGER,
      allowNull: true,
      references: { model: 'tasks', key: 'id' },
      onDelete: 'CASCADE',
    },
    template_id: {
      type: DataTypes.INTEGER,
      allowNull: true,
      references: { model: 'templates', key: 'id' },
      onDelete: 'CASCADE',
    },
    channel_id: {
      type: DataTypes.INTEGER,
      allowNull: false,
      references: { model: 'channels', key: 'id' },
      onDelete: 'RESTRICT',
    },
    content_type: { type: DataTypes.STRING(16), allowNull: false },
    enabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    recipient: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    dynamic_recipients: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    at_mobiles: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    at_all: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    ...timestamps,
  });
  await qi.addIndex('instances', ['task_id']);
  await qi.addIndex('instances', ['template_id']);
  await qi.addIndex('instances', ['channel_id']);
  // Sends and deliveries keep no foreign key to tasks, templates or channels: the log
  // outlives what it logs.
  await qi.createTable('sends', {
    id,
    api: { type: DataTypes.STRING(4), allowNull: false },
    task_id: { type: DataTypes.INTEGER, allowNull: true },
    template_id: { type: DataTypes.INTEGER, allowNull: true },
    source_name: { type: DataTypes.STRING(100), allowNull: false, defaultValue: '' },
    title: { type: DataTypes.TEXT, allowNull: false },
    text: { type: DataTypes.TEXT, allowNull: true },
    html: { type: DataTypes.TEXT, allowNull: true },
    markdown: { type: DataTypes.TEXT, allowNull: true },
    url: { type: DataTypes.TEXT, allowNull: true },
    request: { type: DataTypes.JSON, allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
    delivery_count: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    ...timestamps,
  });
  await qi.addIndex('sends', ['created_at']);
  await qi.addIndex('sends', ['task_id']);
  await qi.addIndex('sends', ['template_id']);
  await qi.addIndex('sends', ['status']);
  await qi.createTable('deliveries', {
    id,
    send_id: {
      type: DataTypes.INTEGER,
      allowNull: false,
      references: { model: 'sends', key: 'id' },
      onDelete: 'CASCADE',
    },
    instance_id: {
      type: DataTypes.INTEGER,
      allowNull: true,
      references: { model: 'instances', key: 'id' },
      onDelete: 'SET NULL',
    },
    channel_id: { type: DataTypes.INTEGER, allowNull: false },
    channel_type: { type: DataTypes.STRING(32), allowNull: false },
    content_type: { type: DataTypes.STRING(16), allowNull: false },
    recipient: { type: DataTypes.TEXT, allowNull: true },
    title: { type: DataTypes.TEXT, allowNull: false },
    content: { type: DataTypes.TEXT, allowNull: false },
    url: { type: DataTypes.TEXT, allowNull: true },
    mentions: { type: DataTypes.JSON, allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'queued' },
    attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    next_attempt_at: { type: DataTypes.BIGINT, allowNull: false },
    lease_until: { type: DataTypes.BIGINT, allowNull: true },
    last_error: { type: DataTypes.TEXT, allowNull: true },
    reply: { type: DataTypes.TEXT, allowNull: true },
    sent_at: { type: DataTypes.DATE, allowNull: true },
    ...timestamps,
  });
  await qi.addIndex('deliveries', ['status', 'next_attempt_at']);
  await qi.addIndex('deliveries', ['send_id']);
  await qi.addIndex('deliveries', ['channel_id']);
  await qi.createTable('delivery_attempts', {
    id,
    delivery_id: {
      type: DataTypes.INTEGER,
      allowNull: false,
      references: { model: 'deliveries', key: 'id' },
      onDelete: 'CASCADE',
    },
    attempt: { type: DataTypes.INTEGER, allowNull: false },
    outcome: { type: DataTypes.STRING(16), allowNull: false },
    error: { type: DataTypes.TEXT, allowNull: true },
    reply: { type: DataTypes.TEXT, allowNull: true },
    duration_ms: { type: DataTypes.INTEGER, allowNull: false },
    started_at: { type: DataTypes.DATE, allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('delivery_attempts', ['delivery_id']);
  await qi.createTable('hosted_messages', {
    id,
    channel_id: { type: DataTypes.INTEGER, allowNull: true },
    delivery_id: { type: DataTypes.INTEGER, allowNull: true, unique: true },
    title: { type: DataTypes.TEXT, allowNull: false },
    content: { type: DataTypes.TEXT, allowNull: false },
    format: { type: DataTypes.STRING(16), allowNull: false },
    url: { type: DataTypes.TEXT, allowNull: true },
    read_at: { type: DataTypes.DATE, allowNull: true },
    ...timestamps,
  });
  await qi.addIndex('hosted_messages', ['created_at']);
  await qi.addIndex('hosted_messages', ['read_at']);
  await qi.createTable('idempotency_keys', {
    id,
    scope: { type: DataTypes.STRING(16), allowNull: false },
    key: { type: DataTypes.STRING(255), allowNull: false },
    response: { type: DataTypes.JSON, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await qi.addIndex('idempotency_keys', ['scope', 'key'], { unique: true });
  await qi.addIndex('idempotency_keys', ['created_at']);
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
  for (const table of [
    'idempotency_keys',
    'hosted_messages',
    'delivery_attempts',
    'deliveries',
    'sends',
    'instances',
    'templates',
    'tasks',
    'channels',
    'settings',
    'sessions',
    'users',
  ]) {
    await qi.dropTable(table);
  }
}
