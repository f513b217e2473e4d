import { Op, type InferCreationAttributes, type Transaction } from 'sequelize';

import { joinOrTransact, type CallerTx } from '../../db/caller-tx';
import { Schedule, Task, Template } from '../../db/models';
import { containsAny } from '../../db/search';
import { placeholderWarnings } from '../../domain/placeholder-warnings';
import { normalisePlaceholderValues, withRepeats } from '../../domain/placeholders';
import { AppError, badRequest, notFound } from '../../lib/errors';
import { pageOf, type Paging } from '../../lib/paging';
import type { HeraldParts } from '../../parts';
import type { ScheduleRunner } from './schedule-runner';
import { CronError, checkCron, checkTimeZone, machineTimeZone, nextCronRuns } from './cron';
import { plannedNextRun } from './due-times';
import type { SchedulePatch } from '../../../contract';

/** What an administrator sets; the run bookkeeping (next/last run) is Herald's. */
export type ScheduleValues = Omit<
  InferCreationAttributes<Schedule>,
  'id' | 'createdAt' | 'updatedAt' | 'nextRunAt' | 'lastRunAt' | 'lastSendId' | 'lastError'
>;

const DEFAULTS: Omit<ScheduleValues, 'name' | 'title' | 'timezone'> = {
  taskId: null,
  templateId: null,
  cron: null,
  runAt: null,
  text: null,
  html: null,
  markdown: null,
  url: null,
  atMobiles: [],
  atUserIds: [],
  atAll: false,
  recipients: [],
  placeholders: {},
  enabled: true,
  catchUp: 'once',
};

/** Fields whose change moves the next due time. */
const TIMING_FIELDS = ['cron', 'runAt', 'timezone', 'enabled'] as const;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const blankToNull = (s: string | null | undefined) =>
  s === undefined ? undefined : s === null || s.trim() === '' ? null : s;

/**
 * What ScheduleService uses of the composed parts. Of the runner only `send` ("run now"): the
 * command-line import creates schedules where nothing can send.
 */
/** A schedule as the console shows it (the audit log compares the same fields). */
export function scheduleDto(s: Schedule, sourceName: string | null) {
  return {
    id: s.id,
    name: s.name,
    taskId: s.taskId,
    templateId: s.templateId,
    /** The task's or template's name; null once it was deleted. */
    sourceName,
    cron: s.cron,
    runAt: iso(s.runAt),
    timezone: s.timezone,
    title: s.title,
    text: s.text,
    html: s.html,
    markdown: s.markdown,
    url: s.url,
    atMobiles: s.atMobiles,
    atUserIds: s.atUserIds,
    atAll: s.atAll,
    recipients: s.recipients,
    placeholders: s.placeholders,
    enabled: s.enabled,
    catchUp: s.catchUp,
    nextRunAt: iso(s.nextRunAt),
    lastRunAt: iso(s.lastRunAt),
    lastSendId: s.lastSendId,
    lastError: s.lastError,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}
export type ScheduleServiceDeps = Pick<
  HeraldParts,
  'sequelize' | 'clock' | 'writeLock' | 'events'
> & {
  scheduleRunner: Pick<ScheduleRunner, 'send'>;
};

export class ScheduleService {
  constructor(private readonly deps: ScheduleServiceDeps) {}

  toDto(s: Schedule, sourceName: string | null) {
    return scheduleDto(s, sourceName);
  }

  private async dtos(rows: Schedule[], transaction?: Transaction) {
    const taskIds = rows.flatMap((s) => (s.taskId === null ? [] : [s.taskId]));
    const templateIds = rows.flatMap((s) => (s.templateId === null ? [] : [s.templateId]));
    const tasks = new Map(
      (await Task.findAll({ where: { id: taskIds }, transaction })).map((t) => [t.id, t.name]),
    );
    const templates = new Map(
      (await Template.findAll({ where: { id: templateIds }, transaction })).map((t) => [
        t.id,
        t.name,
      ]),
    );
    return rows.map((s) =>
      this.toDto(
        s,
        (s.taskId !== null ? tasks.get(s.taskId) : undefined) ??
          (s.templateId !== null ? templates.get(s.templateId) : undefined) ??
          null,
      ),
    );
  }

  async list(name: string | undefined, paging: Paging) {
    const where = name ? { [Op.and]: [containsAny(this.deps.sequelize, ['name'], name)] } : {};
    const { rows, count } = await Schedule.findAndCountAll({
      where,
      order: [['id', 'DESC']],
      limit: paging.pageSize,
      offset: paging.offset,
    });
    return pageOf(await this.dtos(rows), count, paging);
  }

  /** With a transaction, as it sees the rows (its own writes included). */
  async get(id: number, transaction?: Transaction): Promise<Schedule> {
    const s = await Schedule.findByPk(id, { transaction });
    if (!s) throw notFound(`schedule ${id} does not exist`);
    return s;
  }

  async detail(id: number, transaction?: Transaction) {
    return (await this.dtos([await this.get(id, transaction)], transaction))[0];
  }

  /**
   * Checks and stores a schedule; in the caller's transaction if given, where its task or
   * template may have been created a moment earlier. The scheduler hears of it once it is
   * committed.
   */
  async create(input: SchedulePatch & { name: string; title: string }, tx?: CallerTx) {
    const now = this.deps.clock.now();
    const values = await this.check(
      { ...DEFAULTS, timezone: machineTimeZone(), ...tidy(input) } as ScheduleValues,
      now,
      true,
      tx?.transaction,
    );
    const s = await joinOrTransact(
      this.deps.writeLock,
      tx,
      async ({ transaction, afterCommit }) => {
        const row = await Schedule.create(
          { ...values, nextRunAt: plannedNextRun(values, now) },
          { transaction },
        );
        afterCommit(() => this.deps.events.emit('schedule', { id: row.id }));
        return row;
      },
    );
    return this.withWarnings(await this.detail(s.id, tx?.transaction), tx?.transaction);
  }

  async update(id: number, patch: SchedulePatch) {
    const s = await this.get(id);
    const now = this.deps.clock.now();
    const current: ScheduleValues = {
      name: s.name,
      taskId: s.taskId,
      templateId: s.templateId,
      cron: s.cron,
      runAt: s.runAt,
      timezone: s.timezone,
      title: s.title,
      text: s.text,
      html: s.html,
      markdown: s.markdown,
      url: s.url,
      atMobiles: s.atMobiles,
      atUserIds: s.atUserIds,
      atAll: s.atAll,
      recipients: s.recipients,
      placeholders: s.placeholders,
      enabled: s.enabled,
      catchUp: s.catchUp,
    };
    const changes = tidy(patch);
    const timingChanged = TIMING_FIELDS.some(
      (f) => changes[f] !== undefined && changes[f] !== current[f],
    );
    const values = await this.check({ ...current, ...changes }, now, timingChanged);
    // Only a change of when it runs moves the due time: a pending (even overdue) run stays.
    const timing = timingChanged ? { nextRunAt: plannedNextRun(values, now) } : {};
    await this.deps.writeLock.run(() => s.update({ ...values, ...timing }));
    this.deps.events.emit('schedule', { id });
    return this.withWarnings(await this.detail(id));
  }

  /**
   * A template schedule's placeholder warnings, as its runs would answer them today: saved
   * anyway (the template may be fixed later), but said at once rather than at the first run.
   */
  private async withWarnings(dto: ReturnType<typeof scheduleDto>, transaction?: Transaction) {
    if (dto.templateId === null) return dto;
    const template = await Template.findByPk(dto.templateId, { transaction });
    if (!template) return dto;
    const warnings = placeholderWarnings(
      {
        name: template.name,
        text: template.text,
        html: template.html,
        markdown: template.markdown,
        placeholders: withRepeats(template.placeholders),
      },
      dto.placeholders,
    );
    return warnings.length > 0 ? { ...dto, warnings } : dto;
  }

  async remove(id: number): Promise<void> {
    const s = await this.get(id);
    await this.deps.writeLock.run(() => s.destroy());
    this.deps.events.emit('schedule', { id });
  }

  /** Sends the schedule's message now, whatever its timing; its next due time stays. */
  async runNow(id: number) {
    const s = await this.get(id);
    const now = this.deps.clock.now();
    let sendId: number;
    try {
      sendId = await this.deps.scheduleRunner.send(s);
    } catch (err) {
      if (err instanceof AppError) {
        await this.deps.writeLock.run(() =>
          Schedule.update({ lastRunAt: now, lastError: err.message }, { where: { id } }),
        );
        this.deps.events.emit('scheduleRun', { id });
      }
      throw err;
    }
    await this.deps.writeLock.run(() =>
      Schedule.update({ lastRunAt: now, lastSendId: sendId, lastError: null }, { where: { id } }),
    );
    this.deps.events.emit('scheduleRun', { id });
    return { sendId, schedule: await this.detail(id) };
  }

  /** The next `count` run times of an expression, for the editor's live preview. */
  preview(cron: string, timezone: string | undefined, count: number) {
    const now = this.deps.clock.now();
    const zone = asField('timezone', () => checkTimeZone(timezone || machineTimeZone()));
    const normal = asField('cron', () => checkCron(cron, zone, now));
    const runs = nextCronRuns(normal, zone, now, count);
    return { cron: normal, timezone: zone, runs: runs.map((t) => new Date(t).toISOString()) };
  }

  /** The rules across fields; answers the values as they are stored. */
  private async check(
    values: ScheduleValues,
    now: number,
    timingChanged: boolean,
    transaction?: Transaction,
  ): Promise<ScheduleValues> {
    const out = { ...values };
    if (out.taskId === null && out.templateId === null) {
      throw badRequest(
        'taskId, templateId: give one: the task that sends your content (V1), or the template whose placeholders you fill (V2)',
      );
    }
    if (out.taskId !== null && out.templateId !== null) {
      throw badRequest(
        'taskId, templateId: give only one (send the other as null to switch between them)',
      );
    }
    if (out.taskId !== null) {
      if (!(await Task.findByPk(out.taskId, { transaction })))
        throw badRequest(`taskId: task ${out.taskId} does not exist`);
      if (!out.text && !out.html && !out.markdown)
        throw badRequest(
          'text, html, markdown: a task schedule sends its own content; give at least one',
        );
      if (Object.keys(out.placeholders).length > 0)
        throw badRequest(
          'placeholders: only a template schedule fills placeholders; a task schedule sends its text, html or markdown',
        );
    } else {
      if (!(await Template.findByPk(out.templateId as number, { transaction })))
        throw badRequest(`templateId: template ${out.templateId} does not exist`);
      const bodies = (['text', 'html', 'markdown'] as const).filter((f) => out[f] !== null);
      if (bodies.length > 0)
        throw badRequest(
          `${bodies.join(', ')}: a template schedule sends its template's content; fill placeholders instead`,
        );
      const mentions = [
        ...(out.atMobiles.length > 0 ? ['atMobiles'] : []),
        ...(out.atUserIds.length > 0 ? ['atUserIds'] : []),
        ...(out.atAll ? ['atAll'] : []),
      ];
      if (mentions.length > 0)
        throw badRequest(
          `${mentions.join(', ')}: a template schedule uses its template's mentions; set them on the template`,
        );
    }
    if (out.cron === null && out.runAt === null)
      throw badRequest('cron, runAt: give one: a cron expression, or runAt for a single run');
    if (out.cron !== null && out.runAt !== null)
      throw badRequest(
        'cron, runAt: give only one (send the other as null to switch between repeating and once)',
      );
    out.timezone = asField('timezone', () => checkTimeZone(out.timezone));
    if (out.cron !== null) {
      const cron = out.cron;
      out.cron = asField('cron', () => checkCron(cron, out.timezone, now));
    } else if (out.enabled && timingChanged && (out.runAt as number) <= now) {
      throw badRequest(
        `runAt: ${new Date(out.runAt as number).toISOString()} has passed; pick a later time (or leave the schedule disabled)`,
      );
    }
    return out;
  }
}

/** Empty strings in optional text fields mean "none"; placeholder values are kept as strings. */
function tidy(input: SchedulePatch): Partial<ScheduleValues> {
  const out: Partial<ScheduleValues> = {};
  for (const [key, value] of Object.entries(input) as Array<[keyof SchedulePatch, unknown]>) {
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  for (const key of ['cron', 'text', 'html', 'markdown', 'url'] as const) {
    const tidied = blankToNull(input[key]);
    if (tidied !== undefined) out[key] = tidied;
  }
  if (input.placeholders) out.placeholders = normalisePlaceholderValues(input.placeholders);
  return out;
}

function asField<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof CronError) throw badRequest(`${field}: ${err.message}`);
    throw err;
  }
}
