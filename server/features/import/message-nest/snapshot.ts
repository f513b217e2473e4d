import { inspectSchema, type MessageNestTable, type SourceSchema } from './schema';
import type { SourceReader } from './source';
import { text, timeOf, type Row } from './values';

/** Everything read from Message Nest, before anything is written in Herald. */
export interface Snapshot {
  /** Where it was read from, safe to print. */
  description: string;
  schema: SourceSchema;
  rows: Partial<Record<MessageNestTable, Row[]>>;
}

const byAge = (a: Row, b: Row) =>
  (timeOf(a.created_on)?.getTime() ?? 0) - (timeOf(b.created_on)?.getTime() ?? 0) ||
  text(a.id).localeCompare(text(b.id));

/** Checks the schema and reads every row the import uses; throws ImportInputError on bad input. */
export async function readMessageNest(source: SourceReader, withLogs: boolean): Promise<Snapshot> {
  const schema = await inspectSchema(source);
  const wanted: MessageNestTable[] = [
    'send_ways',
    'send_tasks',
    'template',
    'send_tasks_ins',
    'cron_messages',
    'hosted_message',
    ...(withLogs ? (['send_tasks_logs'] as const) : []),
  ];
  const rows: Snapshot['rows'] = {};
  for (const table of wanted) {
    const physical = schema.tables[table];
    if (physical) rows[table] = (await source.readAll(physical)).sort(byAge);
  }
  return { description: source.description, schema, rows };
}
