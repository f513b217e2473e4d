import type { ChannelRegistry } from '../../../channels/registry';
import type { CallerTx } from '../../../db/caller-tx';
import { ImportMap } from '../../../db/models';
import type { WriteLock } from '../../../db/writer';
import { NO_PROGRESS, type RowProgress } from '../../../lib/progress';
import type { ChannelService } from '../../channel-config/channel-service';
import type { ScheduleService } from '../../schedules/schedule-service';
import type { SettingsStore } from '../../settings/settings-store';
import type { ImportKind, ImportReport } from './report';
import type { MessageNestTable } from './schema';
import type { Snapshot } from './snapshot';
import { importTimeZone, type ImportTimeZone } from './time-zone';
import { text, timeOf, type Row } from './values';

export const SOURCE_SYSTEM = 'message-nest';

/** The Message Nest table each kind of Herald row comes from. */
const SOURCE_TABLES: Record<ImportKind, MessageNestTable> = {
  channels: 'send_ways',
  tasks: 'send_tasks',
  templates: 'template',
  instances: 'send_tasks_ins',
  schedules: 'cron_messages',
  hostedMessages: 'hosted_message',
  logs: 'send_tasks_logs',
};

/**
 * What an import writes with. Channels, schedules and the settings go through the services the
 * console uses, so they are checked, sealed and announced the same way.
 */
export interface ImportDeps {
  /** The import is one job of the Writer: one transaction, serialised with every other write. */
  writeLock: WriteLock;
  registry: ChannelRegistry;
  channels: Pick<ChannelService, 'create'>;
  schedules: Pick<ScheduleService, 'create'>;
  settings: Pick<SettingsStore, 'read' | 'update'>;
  now(): Date;
}

/**
 * One import under way: its transaction, the report it fills, and the Herald ids of what it
 * met so far, which the later steps refer to (an instance to its task and channel).
 */
export class ImportRun {
  private readonly mapped = new Map<string, number>();
  readonly channelIds = new Map<string, number>();
  /** Why a channel was left out, for the instances that used it. */
  readonly channelSkips = new Map<string, string>();
  readonly taskIds = new Map<string, number>();
  readonly templateIds = new Map<string, number>();

  constructor(
    readonly deps: ImportDeps,
    readonly snapshot: Snapshot,
    readonly report: ImportReport,
    readonly tx: CallerTx,
    private readonly progress: RowProgress = NO_PROGRESS,
    /** The zone of schedules whose expression names none. */
    readonly timeZone: ImportTimeZone = importTimeZone(undefined),
  ) {}

  /** Every row an earlier import brought over (import_map). */
  async loadMap() {
    const rows = await ImportMap.findAll({
      where: { sourceSystem: SOURCE_SYSTEM },
      transaction: this.tx.transaction,
    });
    for (const m of rows) this.mapped.set(`${m.sourceTable}:${m.sourceId}`, m.heraldId);
  }

  rows(table: MessageNestTable): Row[] {
    return this.snapshot.rows[table] ?? [];
  }

  /**
   * The rows a step imports, one by one, counting each as done once the step moves past it (a
   * `continue` counts too). A table the source lacks prints nothing.
   */
  *walk(table: MessageNestTable): Generator<Row> {
    const rows = this.snapshot.rows[table];
    if (rows === undefined) return;
    const meter = this.progress.table(this.snapshot.schema.tables[table] ?? table, rows.length);
    let done = 0;
    for (const row of rows) {
      yield row;
      meter.advance(++done);
    }
    meter.finish(done);
  }

  skip(kind: ImportKind, id: string, name: string, reason: string) {
    this.report.counts[kind].skipped += 1;
    const table = SOURCE_TABLES[kind];
    this.report.skipped.push({
      kind,
      table: this.snapshot.schema.tables[table] ?? table,
      id,
      name,
      reason,
    });
  }

  note(text: string) {
    this.report.notes.push(text);
  }

  async remember(
    sourceTable: MessageNestTable,
    sourceId: string,
    heraldTable: string,
    heraldId: number,
    sourceKey: string | null = null,
  ) {
    await ImportMap.create(
      { sourceSystem: SOURCE_SYSTEM, sourceTable, sourceId, heraldTable, heraldId, sourceKey },
      { transaction: this.tx.transaction },
    );
    this.mapped.set(`${sourceTable}:${sourceId}`, heraldId);
  }

  already(sourceTable: MessageNestTable, sourceId: string): number | undefined {
    return this.mapped.get(`${sourceTable}:${sourceId}`);
  }

  /** Message Nest's own times of a row, so the console shows when it was really made. */
  timestamps(row: Row) {
    const now = this.deps.now();
    const created = timeOf(row.created_on) ?? now;
    return { createdAt: created, updatedAt: timeOf(row.modified_on) ?? created };
  }

  /** Int-keyed rows get their creation time in the id, so two Message Nest databases never collide. */
  rowKey(row: Row): string {
    return `${text(row.id)}@${timeOf(row.created_on)?.getTime() ?? 0}`;
  }
}
