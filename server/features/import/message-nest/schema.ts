import { AppError } from '../../../lib/errors';
import type { SourceReader } from './source';

const AUDIT = ['created_by', 'modified_by', 'created_on', 'modified_on'];

/**
 * Every table and column Message Nest v0.0.1 … v2.2.4 may hold (its GORM AutoMigrate only adds,
 * so an older database has a subset). `required` are what the importer cannot do without.
 */
export const MESSAGE_NEST_TABLES = {
  auth: { required: ['id', 'username'], optional: ['password', ...AUDIT] },
  send_tasks: { required: ['id', 'name'], optional: AUDIT },
  send_ways: { required: ['id', 'name', 'type', 'auth'], optional: AUDIT },
  send_tasks_ins: {
    required: ['id', 'task_id', 'way_id', 'content_type', 'config'],
    optional: ['template_id', 'way_type', 'extra', 'enable', ...AUDIT],
  },
  send_tasks_logs: {
    required: ['id', 'task_id', 'log'],
    optional: ['type', 'name', 'status', 'caller_ip', 'created_on', 'modified_on'],
  },
  settings: { required: ['id', 'section', 'key', 'value'], optional: AUDIT },
  cron_messages: {
    required: ['id', 'name', 'task_id', 'cron', 'title', 'content'],
    optional: ['url', 'enable', ...AUDIT],
  },
  hosted_message: {
    required: ['id', 'title', 'content', 'type'],
    optional: ['unique_key', 'created_on', 'modified_on'],
  },
  login_log: { required: ['id'], optional: ['user_id', 'username', 'ip', 'ua', ...AUDIT] },
  template: {
    required: ['id', 'name'],
    optional: [
      'description',
      'text_template',
      'html_template',
      'markdown_template',
      'placeholders',
      'at_mobiles',
      'at_user_ids',
      'is_at_all',
      'status',
      ...AUDIT,
    ],
  },
  send_stats: {
    required: ['id'],
    optional: ['task_id', 'task_type', 'day', 'status', 'num'],
  },
} as const satisfies Record<string, { required: readonly string[]; optional: readonly string[] }>;

export type MessageNestTable = keyof typeof MESSAGE_NEST_TABLES;

/** The tables every Message Nest database has had since its first release. */
const CORE: MessageNestTable[] = ['send_tasks', 'send_ways', 'send_tasks_ins'];

/** The newest Message Nest release whose schema this importer knows. */
export const KNOWN_VERSION = 'v2.2.4';

export interface SourceSchema {
  /** The table name prefix (`message_` by default, '' when app.ini set none). */
  prefix: string;
  /** Physical table names by logical name, for the tables present. */
  tables: Partial<Record<MessageNestTable, string>>;
  columns: Partial<Record<MessageNestTable, string[]>>;
}

export class ImportInputError extends AppError {
  constructor(message: string) {
    super(400, message);
    this.name = 'ImportInputError';
  }
}

/**
 * Finds Message Nest's tables (its prefix is whatever precedes `send_ways`) and checks that
 * their columns are ones this importer knows: a database from a newer Message Nest is refused
 * rather than half-read.
 */
export async function inspectSchema(source: SourceReader): Promise<SourceSchema> {
  const names = await source.listTables();
  const candidates = names
    .filter((n) => n.toLowerCase().endsWith('send_ways'))
    .map((n) => n.slice(0, n.length - 'send_ways'.length))
    .sort(
      (a, b) => Number(names.includes(`${b}send_tasks`)) - Number(names.includes(`${a}send_tasks`)),
    );
  if (candidates.length === 0) {
    throw new ImportInputError(
      `${source.description} is not a Message Nest database: it has no table ending in "send_ways" ` +
        `(its tables: ${names.length ? names.slice(0, 12).join(', ') : 'none'}). ` +
        'Point the importer at the conf/database.db file of Message Nest, or at its MySQL/PostgreSQL database.',
    );
  }
  const prefix = candidates[0];
  const schema: SourceSchema = { prefix, tables: {}, columns: {} };
  for (const table of Object.keys(MESSAGE_NEST_TABLES) as MessageNestTable[]) {
    const physical = names.find((n) => n.toLowerCase() === `${prefix}${table}`.toLowerCase());
    if (!physical) continue;
    const columns = (await source.listColumns(physical)).map((c) => c.toLowerCase());
    const known = MESSAGE_NEST_TABLES[table];
    const missing = known.required.filter((c) => !columns.includes(c));
    if (missing.length > 0) {
      throw new ImportInputError(
        `unknown Message Nest schema: table ${physical} lacks ${missing.join(', ')}; ` +
          `this importer reads the schemas of Message Nest v0.0.1 to ${KNOWN_VERSION}. Nothing was imported.`,
      );
    }
    const knownColumns: readonly string[] = [...known.required, ...known.optional];
    const unknown = columns.filter((c) => !knownColumns.includes(c));
    if (unknown.length > 0) {
      throw new ImportInputError(
        `unknown Message Nest schema: table ${physical} has column${unknown.length > 1 ? 's' : ''} ` +
          `${unknown.join(', ')}, which Message Nest up to ${KNOWN_VERSION} never had: it comes from a newer ` +
          'Message Nest than this importer knows. Update Herald and import again. Nothing was imported.',
      );
    }
    schema.tables[table] = physical;
    schema.columns[table] = columns;
  }
  const lacking = CORE.filter((t) => !schema.tables[t]);
  if (lacking.length > 0) {
    throw new ImportInputError(
      `${source.description} is not a complete Message Nest database: it lacks ` +
        `${lacking.map((t) => `${prefix}${t}`).join(', ')}. Nothing was imported.`,
    );
  }
  return schema;
}
