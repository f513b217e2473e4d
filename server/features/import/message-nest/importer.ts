import type { Sequelize, Transaction } from 'sequelize';

import { sealSecrets } from '../../channel-config/channel-secrets';
import { sealProxy } from '../../channel-config/proxy-credentials';
import type { ContentType } from '../../../channels/channel-adapter';
import { adapterFor, type ChannelRegistry } from '../../../channels/registry';
import { sendApiSchema } from '../../../config/settings-schema';
import type { SecretBox } from '../../../crypto/secret-box';
import {
  Channel,
  HostedMessage,
  ImportMap,
  Instance,
  Send,
  Setting,
  Task,
  Template,
} from '../../../db/models';
import type { PlaceholderDefinition } from '../../../db/models/template';
import { splitList } from '../../../domain/lists';
import { describeIssues } from '../../../lib/validation';
import { isWayType, MESSAGE_NEST_CHANNEL_KINDS } from './channel-kinds';
import { emptyCounts, type ImportKind, type ImportReport } from './report';
import { ScheduleRefused, type ImportedSchedule, type ScheduleSink } from './schedule-sink';
import { inspectSchema, type MessageNestTable, type SourceSchema } from './schema';
import type { SourceReader } from './source';
import { flag, jsonOf, recordOf, text, timeOf, type Row } from './values';

export const SOURCE_SYSTEM = 'message-nest';

export interface ImportDeps {
  sequelize: Sequelize;
  secrets: SecretBox;
  registry: ChannelRegistry;
  /**
   * Runs the import in one write transaction, serialised with the server's other writes (the
   * writer's cycle); a throw rolls back everything it wrote.
   */
  inTransaction<T>(fn: (transaction: Transaction) => Promise<T>): Promise<T>;
  now(): Date;
  /** Creates schedules (issue 13, part B); without it cron messages are reported as skipped. */
  scheduleSink?: ScheduleSink;
}

export interface ImportOptions {
  dryRun: boolean;
  withLogs: boolean;
}

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

/** Thrown inside the transaction of a dry run, so that everything it did is rolled back. */
class DryRunRollback extends Error {}

/**
 * Imports a Message Nest database into Herald in one transaction: everything or nothing. The
 * source is only read. Rows imported before (import_map) are counted, not created again.
 */
export async function importMessageNest(
  source: SourceReader,
  deps: ImportDeps,
  options: ImportOptions,
): Promise<ImportReport> {
  return importSnapshot(await readMessageNest(source, options.withLogs), deps, options);
}

/** The writing half of importMessageNest, for callers that read the source first. */
export async function importSnapshot(
  snapshot: Snapshot,
  deps: ImportDeps,
  options: ImportOptions,
): Promise<ImportReport> {
  const report: ImportReport = {
    source: snapshot.description,
    dryRun: options.dryRun,
    tablePrefix: snapshot.schema.prefix,
    counts: emptyCounts(),
    skipped: [],
    notes: [],
  };
  try {
    await deps.inTransaction(async (transaction) => {
      await new ImportRun(deps, snapshot, report, transaction).run(options);
      if (options.dryRun) throw new DryRunRollback();
    });
  } catch (err) {
    if (!(err instanceof DryRunRollback)) throw err;
  }
  return report;
}

class ImportRun {
  private readonly mapped = new Map<string, number>();
  private readonly channelIds = new Map<string, number>();
  private readonly channelSkips = new Map<string, string>();
  private readonly taskIds = new Map<string, number>();
  private readonly templateIds = new Map<string, number>();

  constructor(
    private readonly deps: ImportDeps,
    private readonly snapshot: Snapshot,
    private readonly report: ImportReport,
    private readonly transaction: Transaction,
  ) {}

  private rows(table: MessageNestTable): Row[] {
    return this.snapshot.rows[table] ?? [];
  }

  private skip(kind: ImportKind, id: string, name: string, reason: string) {
    this.report.counts[kind].skipped += 1;
    this.report.skipped.push({ kind, id, name, reason });
  }

  private async remember(
    sourceTable: MessageNestTable,
    sourceId: string,
    heraldTable: string,
    heraldId: number,
    sourceKey: string | null = null,
  ) {
    await ImportMap.create(
      { sourceSystem: SOURCE_SYSTEM, sourceTable, sourceId, heraldTable, heraldId, sourceKey },
      { transaction: this.transaction },
    );
    this.mapped.set(`${sourceTable}:${sourceId}`, heraldId);
  }

  private already(sourceTable: MessageNestTable, sourceId: string): number | undefined {
    return this.mapped.get(`${sourceTable}:${sourceId}`);
  }

  async run(options: ImportOptions) {
    const { transaction } = this;
    for (const m of await ImportMap.findAll({
      where: { sourceSystem: SOURCE_SYSTEM },
      transaction,
    })) {
      this.mapped.set(`${m.sourceTable}:${m.sourceId}`, m.heraldId);
    }
    await this.channels();
    await this.tasks();
    await this.templates();
    await this.instances();
    await this.schedules();
    await this.hostedMessages();
    if (options.withLogs) await this.logs();
    else if (this.snapshot.schema.tables.send_tasks_logs) {
      this.report.notes.push(
        'Send logs were not imported: run the import with --with-logs to bring them over.',
      );
    }
    this.report.notes.push(
      'Message Nest’s admin account is not imported: sign in to Herald with Herald’s own administrator.',
    );
    await this.answerLikeMessageNest(options.dryRun);
  }

  // ---- channels --------------------------------------------------------------------------

  private async channels() {
    for (const row of this.rows('send_ways')) {
      const id = text(row.id);
      const name = text(row.name).trim() || id;
      const type = text(row.type);
      const existing = this.already('send_ways', id);
      if (existing !== undefined) {
        this.channelIds.set(id, existing);
        this.report.counts.channels.alreadyImported += 1;
        continue;
      }
      const reason = await this.createChannel(id, name, type, recordOf(row.auth), row);
      if (reason) {
        this.channelSkips.set(id, reason);
        this.skip('channels', id, name, reason);
      }
    }
  }

  /** Creates one channel; returns the reason it cannot, or null. */
  private async createChannel(
    id: string,
    name: string,
    type: string,
    auth: Record<string, unknown>,
    row: Row,
  ): Promise<string | null> {
    if (!isWayType(type)) return `unknown Message Nest channel kind "${type}"`;
    const kind = MESSAGE_NEST_CHANNEL_KINDS[type];
    if ('unsupported' in kind) return `${type}: ${kind.unsupported}`;
    const adapter = adapterFor(this.deps.registry, kind.heraldType);
    if (!adapter) return `${type}: Herald has no ${kind.heraldType} channel kind`;
    const instances = this.rows('send_tasks_ins')
      .filter((r) => text(r.way_id) === id)
      .map((r) => recordOf(r.config));
    const mapped = kind.channel(auth, instances);
    if ('skip' in mapped) return `${type}: ${mapped.skip}`;
    const parsed = adapter.configSchema.safeParse(mapped.config);
    if (!parsed.success) {
      return `${type}: its settings do not make a valid Herald ${adapter.label} channel (${describeIssues(parsed.error)})`;
    }
    const config = sealProxy(
      sealSecrets(parsed.data as Record<string, unknown>, adapter.secretFields, this.deps.secrets),
      this.deps.secrets,
    );
    const channel = await Channel.create(
      {
        name: name.slice(0, 100),
        description: `Imported from Message Nest (${type} ${id})`,
        type: adapter.type,
        config,
        ...this.timestamps(row),
      },
      { transaction: this.transaction, silent: true },
    );
    await this.remember('send_ways', id, 'channels', channel.id);
    this.channelIds.set(id, channel.id);
    this.report.counts.channels.created += 1;
    for (const note of mapped.notes ?? [])
      this.report.notes.push(`Channel "${name}" (${id}): ${note}.`);
    return null;
  }

  private timestamps(row: Row) {
    const now = this.deps.now();
    const created = timeOf(row.created_on) ?? now;
    return { createdAt: created, updatedAt: timeOf(row.modified_on) ?? created };
  }

  // ---- tasks and templates ------------------------------------------------------------------

  /** Herald names are unique: a name already taken gets the Message Nest id appended. */
  private async freeName(model: typeof Task | typeof Template, wanted: string, id: string) {
    const base = (wanted.trim() || id).slice(0, 100);
    const taken = await (model as typeof Task).findOne({
      where: { name: base },
      transaction: this.transaction,
    });
    if (!taken) return base;
    const renamed = `${base.slice(0, 100 - id.length - 3)} (${id})`;
    const what = model === Task ? 'Task' : 'Template';
    this.report.notes.push(
      `${what} "${base}" (${id}) was imported as "${renamed}": the name was taken.`,
    );
    return renamed;
  }

  /** A task or template that already holds this Message Nest id (its import_map row was lost). */
  private async heldLegacy(model: typeof Task | typeof Template, id: string) {
    return (model as typeof Task).findOne({
      where: { legacyId: id },
      transaction: this.transaction,
    });
  }

  private async tasks() {
    for (const row of this.rows('send_tasks')) {
      const id = text(row.id);
      const existing = this.already('send_tasks', id) ?? (await this.heldLegacy(Task, id))?.id;
      if (existing !== undefined) {
        this.taskIds.set(id, existing);
        this.report.counts.tasks.alreadyImported += 1;
        continue;
      }
      const task = await Task.create(
        {
          name: await this.freeName(Task, text(row.name), id),
          legacyId: id,
          acceptLegacyToken: false,
          ...this.timestamps(row),
        },
        { transaction: this.transaction, silent: true },
      );
      await this.remember('send_tasks', id, 'tasks', task.id);
      this.taskIds.set(id, task.id);
      this.report.counts.tasks.created += 1;
    }
  }

  private async templates() {
    for (const row of this.rows('template')) {
      const id = text(row.id);
      const existing = this.already('template', id) ?? (await this.heldLegacy(Template, id))?.id;
      if (existing !== undefined) {
        this.templateIds.set(id, existing);
        this.report.counts.templates.alreadyImported += 1;
        continue;
      }
      const body = (v: unknown) => (text(v) === '' ? null : text(v));
      const template = await Template.create(
        {
          name: await this.freeName(Template, text(row.name), id),
          description: text(row.description),
          enabled: text(row.status || 'enabled') === 'enabled',
          placeholders: placeholdersOf(row.placeholders),
          text: body(row.text_template),
          html: body(row.html_template),
          markdown: body(row.markdown_template),
          atMobiles: splitList(text(row.at_mobiles)).join(','),
          atUserIds: splitList(text(row.at_user_ids)).join(','),
          atAll: flag(row.is_at_all),
          legacyId: id,
          acceptLegacyToken: false,
          ...this.timestamps(row),
        },
        { transaction: this.transaction, silent: true },
      );
      await this.remember('template', id, 'templates', template.id);
      this.templateIds.set(id, template.id);
      this.report.counts.templates.created += 1;
    }
  }

  // ---- instances ----------------------------------------------------------------------------

  private async instances() {
    const ways = new Map(this.rows('send_ways').map((w) => [text(w.id), w]));
    for (const row of this.rows('send_tasks_ins')) {
      const id = text(row.id);
      const taskRef = text(row.task_id);
      const templateRef = text(row.template_id);
      const ownerLabel = taskRef ? `task ${taskRef}` : `template ${templateRef}`;
      if (this.already('send_tasks_ins', id) !== undefined) {
        this.report.counts.instances.alreadyImported += 1;
        continue;
      }
      const taskId = taskRef ? this.taskIds.get(taskRef) : undefined;
      const templateId = !taskRef && templateRef ? this.templateIds.get(templateRef) : undefined;
      if (taskId === undefined && templateId === undefined) {
        this.skip(
          'instances',
          id,
          ownerLabel,
          `its ${ownerLabel || 'owner'} no longer exists in Message Nest`,
        );
        continue;
      }
      const wayId = text(row.way_id);
      const channelId = this.channelIds.get(wayId);
      const way = ways.get(wayId);
      if (channelId === undefined) {
        const why = this.channelSkips.get(wayId);
        this.skip(
          'instances',
          id,
          ownerLabel,
          why
            ? `its channel ${wayId} was not imported (${why})`
            : `its channel ${wayId} no longer exists in Message Nest`,
        );
        continue;
      }
      const wayType = way ? text(way.type) : '';
      const kind = isWayType(wayType) ? MESSAGE_NEST_CHANNEL_KINDS[wayType] : undefined;
      const config = recordOf(row.config);
      const mapped = kind && !('unsupported' in kind) && kind.instance ? kind.instance(config) : {};
      if ('skip' in mapped) {
        this.skip('instances', id, ownerLabel, mapped.skip);
        continue;
      }
      const channel = await Channel.findByPk(channelId, { transaction: this.transaction });
      const adapter = channel ? adapterFor(this.deps.registry, channel.type) : undefined;
      if (!channel || !adapter) {
        this.skip('instances', id, ownerLabel, `its channel ${wayId} is not in Herald any more`);
        continue;
      }
      const wanted = text(row.content_type).trim().toLowerCase() as ContentType;
      const contentType: ContentType = adapter.contentTypes.includes(wanted)
        ? wanted
        : adapter.contentTypes.includes('text')
          ? 'text'
          : adapter.contentTypes[0];
      if (wanted && wanted !== contentType) {
        this.report.notes.push(
          `Instance ${id} of ${ownerLabel}: ${adapter.label} channels take ${adapter.contentTypes.join('/')}, so it sends ${contentType} instead of ${wanted}.`,
        );
      }
      // Message Nest treats any value other than 1 as paused.
      const enabled = row.enable === undefined || row.enable === null ? true : flag(row.enable);
      const instance = await Instance.create(
        {
          taskId: taskId ?? null,
          templateId: taskId === undefined ? (templateId ?? null) : null,
          channelId,
          contentType,
          enabled,
          recipient: mapped.recipient ?? '',
          dynamicRecipients: mapped.dynamicRecipients ?? false,
          ...this.timestamps(row),
        },
        { transaction: this.transaction, silent: true },
      );
      await this.remember('send_tasks_ins', id, 'instances', instance.id);
      this.report.counts.instances.created += 1;
      for (const note of mapped.notes ?? [])
        this.report.notes.push(`Instance ${id} of ${ownerLabel}: ${note}.`);
    }
  }

  // ---- scheduled messages -----------------------------------------------------------------------

  private async schedules() {
    const sink = this.deps.scheduleSink;
    for (const row of this.rows('cron_messages')) {
      const id = text(row.id);
      const name = text(row.name);
      if (this.already('cron_messages', id) !== undefined) {
        this.report.counts.schedules.alreadyImported += 1;
        continue;
      }
      if (!sink) {
        this.skip('schedules', id, name, 'schedules not available');
        continue;
      }
      const taskRef = text(row.task_id);
      const taskId = this.taskIds.get(taskRef);
      if (taskId === undefined) {
        this.skip('schedules', id, name, `its task ${taskRef} no longer exists in Message Nest`);
        continue;
      }
      const schedule: ImportedSchedule = {
        source: { system: SOURCE_SYSTEM, table: 'cron_messages', id },
        name,
        taskId,
        cron: text(row.cron).trim(),
        timezone: null,
        title: text(row.title),
        text: text(row.content),
        url: text(row.url).trim() || null,
        enabled: row.enable === undefined || row.enable === null ? true : flag(row.enable),
        missedRuns: 'skip',
        createdAt: timeOf(row.created_on),
      };
      try {
        const created = await sink(schedule, this.transaction);
        await this.remember('cron_messages', id, created.table, created.id);
        this.report.counts.schedules.created += 1;
      } catch (err) {
        if (!(err instanceof ScheduleRefused)) throw err;
        this.skip('schedules', id, name, err.message);
      }
    }
  }

  // ---- hosted messages and logs --------------------------------------------------------------

  /** Int-keyed rows get their creation time in the id, so two Message Nest databases never collide. */
  private rowKey(row: Row): string {
    return `${text(row.id)}@${timeOf(row.created_on)?.getTime() ?? 0}`;
  }

  private async hostedMessages() {
    const hasPreviewKey = 'previewKey' in HostedMessage.getAttributes();
    const readAt = this.deps.now();
    for (const row of this.rows('hosted_message')) {
      const sourceId = this.rowKey(row);
      if (this.already('hosted_message', sourceId) !== undefined) {
        this.report.counts.hostedMessages.alreadyImported += 1;
        continue;
      }
      const type = text(row.type).trim().toLowerCase();
      const format: ContentType = type === 'html' || type === 'markdown' ? type : 'text';
      const previewKey = text(row.unique_key).trim() || null;
      const values = {
        channelId: null,
        deliveryId: null,
        title: text(row.title),
        content: text(row.content),
        format,
        url: null,
        // Years of old messages would otherwise all show as unread at once.
        readAt,
        ...this.timestamps(row),
        ...(hasPreviewKey && previewKey ? { previewKey } : {}),
      };
      const message = await HostedMessage.create(values, {
        transaction: this.transaction,
        silent: true,
      });
      await this.remember('hosted_message', sourceId, 'hosted_messages', message.id, previewKey);
      this.report.counts.hostedMessages.created += 1;
    }
  }

  private async logs() {
    for (const row of this.rows('send_tasks_logs')) {
      const sourceId = this.rowKey(row);
      if (this.already('send_tasks_logs', sourceId) !== undefined) {
        this.report.counts.logs.alreadyImported += 1;
        continue;
      }
      const ref = text(row.task_id);
      const isTemplate = text(row.type) === 'template';
      const name = text(row.name) || ref;
      const send = await Send.create(
        {
          api: isTemplate ? 'v2' : 'v1',
          taskId: isTemplate ? null : (this.taskIds.get(ref) ?? null),
          templateId: isTemplate ? (this.templateIds.get(ref) ?? null) : null,
          sourceName: name.slice(0, 100),
          title: `[Message Nest] ${name}`,
          text: text(row.log),
          html: null,
          markdown: null,
          url: null,
          request: { importedFrom: SOURCE_SYSTEM, id: text(row.id), callerIp: text(row.caller_ip) },
          status: flag(row.status) ? 'sent' : 'failed',
          deliveryCount: 0,
          credential: null,
          ...this.timestamps(row),
        },
        { transaction: this.transaction, silent: true },
      );
      await this.remember('send_tasks_logs', sourceId, 'sends', send.id);
      this.report.counts.logs.created += 1;
    }
  }

  // ---- settings -----------------------------------------------------------------------------------

  /**
   * Message Nest answers every send with HTTP 200; scripts written for it may read only the
   * envelope, so an import that brought something over switches Herald to answer the same way.
   */
  private async answerLikeMessageNest(dryRun: boolean) {
    const createdAny = Object.values(this.report.counts).some((c) => c.created > 0);
    if (!createdAny) return;
    const row = await Setting.findByPk('settings', { transaction: this.transaction });
    const stored = storedObject(row?.value);
    const current = sendApiSchema.safeParse(stored.sendApi ?? {});
    if (current.success && current.data.httpStatus === 'always200') return;
    await Setting.upsert(
      { key: 'settings', value: { ...stored, sendApi: { httpStatus: 'always200' } } },
      { transaction: this.transaction },
    );
    this.report.notes.push(
      `${dryRun ? 'Would set' : 'Set'} sendApi.httpStatus to "always200": the send APIs answer HTTP 200 with the code in the body, as Message Nest does (change it back in Settings).`,
    );
  }
}

function storedObject(value: unknown): Record<string, unknown> {
  const parsed = typeof value === 'string' ? jsonOf(value) : value;
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

/** Message Nest's placeholders JSON; a definition without a key is dropped, a missing label is the key. */
function placeholdersOf(value: unknown): PlaceholderDefinition[] {
  const parsed = jsonOf(value);
  if (!Array.isArray(parsed)) return [];
  const out: PlaceholderDefinition[] = [];
  for (const item of parsed) {
    if (item === null || typeof item !== 'object') continue;
    const p = item as Record<string, unknown>;
    const key = text(p.key).trim();
    if (!key || out.some((o) => o.key === key)) continue;
    const def = text(p.default);
    out.push({ key, label: text(p.label).trim() || key, ...(def ? { default: def } : {}) });
  }
  return out;
}
