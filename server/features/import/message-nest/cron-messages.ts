import { AppError } from '../../../lib/errors';
import { translateMessageNestCron } from './cron-spec';
import type { ImportRun } from './import-run';
import { flag, text, type Row } from './values';

/**
 * Message Nest's cron messages, each a schedule of its imported task through the console's
 * ScheduleService, in the import's transaction (the task was created a moment earlier in it).
 * Message Nest sends them in task mode, and never caught up on runs it missed.
 */
export async function importCronMessages(run: ImportRun) {
  for (const row of run.walk('cron_messages')) {
    const id = text(row.id);
    const name = text(row.name);
    if (run.already('cron_messages', id) !== undefined) {
      run.report.counts.schedules.alreadyImported += 1;
      continue;
    }
    const taskRef = text(row.task_id);
    const taskId = run.taskIds.get(taskRef);
    if (taskId === undefined) {
      run.skip('schedules', id, name, `its task ${taskRef} no longer exists in Message Nest`);
      continue;
    }
    const refused = await createSchedule(run, id, name, taskId, row);
    if (refused) run.skip('schedules', id, name, refused);
  }
}

/** Creates one schedule; returns the reason it cannot, or null. */
async function createSchedule(
  run: ImportRun,
  id: string,
  name: string,
  taskId: number,
  row: Row,
): Promise<string | null> {
  const spec = text(row.cron).trim();
  const translated = translateMessageNestCron(spec);
  if ('reason' in translated) return translated.reason;
  const notes = [...translated.notes];
  let enabled = row.enable === undefined || row.enable === null ? true : flag(row.enable);
  if (translated.neverRan && enabled) {
    enabled = false;
    notes.push(
      `imported disabled: Message Nest saved "${spec}" but never ran it (6 fields); Herald reads the first as seconds, so check it before enabling`,
    );
  }
  const scheduleName = name.trim().slice(0, 100) || 'Imported schedule';
  let created;
  try {
    created = await run.deps.schedules.create(
      {
        name: scheduleName,
        taskId,
        cron: translated.cron,
        // None: Message Nest ran it in its process's zone, so the schedule takes Herald's.
        ...(translated.timezone ? { timezone: translated.timezone } : {}),
        title: text(row.title).trim() || scheduleName,
        text: text(row.content),
        url: text(row.url).trim() || null,
        enabled,
        catchUp: 'skip',
      },
      run.tx,
    );
  } catch (err) {
    // The service refuses what it cannot take (an expression or zone it does not read) before
    // it writes anything, so the import's transaction goes on.
    if (err instanceof AppError && err.code < 500) return err.message;
    throw err;
  }
  await run.remember('cron_messages', id, 'schedules', created.id);
  run.report.counts.schedules.created += 1;
  for (const note of notes) run.note(`Scheduled message "${name}" (${id}): ${note}.`);
  return null;
}
