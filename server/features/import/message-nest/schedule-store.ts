import type { Transaction } from 'sequelize';

import { Schedule } from '../../../db/models';
import { CronError, checkCron, checkTimeZone, machineTimeZone } from '../../schedules/cron';
import { plannedNextRun } from '../../schedules/due-times';
import { translateMessageNestCron } from '../../schedules/schedule-import';
import { ScheduleRefused, type ScheduleSink } from './schedule-sink';

/**
 * The importer's schedule sink: each Message Nest cron message becomes a Herald schedule in the
 * import's own transaction (its task was created a moment earlier in the same transaction), so
 * the CLI and the console import alike bring schedules over, all or nothing. The expression
 * goes through the same translation and checks as the console's; what Herald cannot read is
 * refused with the reason, which the report lists.
 */
export function messageNestScheduleSink(now: () => number): ScheduleSink {
  return async (input, transaction: Transaction) => {
    const translated = translateMessageNestCron(input.cron);
    if ('reason' in translated) throw new ScheduleRefused(translated.reason);
    let timezone: string;
    let cron: string;
    try {
      timezone = checkTimeZone(translated.timezone ?? input.timezone ?? machineTimeZone());
      cron = checkCron(translated.cron, timezone, now());
    } catch (err) {
      if (err instanceof CronError) throw new ScheduleRefused(`cron: ${err.message}`);
      throw err;
    }
    // A 6-field spec was saved by Message Nest but never run (its parser takes 5): Herald would
    // read the first field as seconds, so it arrives switched off for a person to check.
    const enabled = input.enabled && !translated.neverRan;
    const name = input.name.trim().slice(0, 100) || 'Imported schedule';
    const timing = { enabled, cron, runAt: null, timezone };
    const row = await Schedule.create(
      {
        name,
        taskId: input.taskId,
        templateId: null,
        cron,
        runAt: null,
        timezone,
        title: input.title.trim() || name,
        text: input.text,
        html: null,
        markdown: null,
        url: input.url || null,
        atMobiles: [],
        atUserIds: [],
        atAll: false,
        recipients: [],
        placeholders: {},
        enabled,
        catchUp: input.missedRuns,
        nextRunAt: plannedNextRun(timing, now()),
      },
      { transaction },
    );
    return { table: 'schedules', id: row.id };
  };
}
