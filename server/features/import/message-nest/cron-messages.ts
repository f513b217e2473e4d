import { AppError } from '../../../lib/errors';
import { translateMessageNestCron } from './cron-spec';
import type { ImportRun } from './import-run';
import { offsetMismatch, type ScheduleZoneSource } from './time-zone';
import { flag, text, type Row } from './values';

/**
 * Message Nest's cron messages, each a schedule of its imported task through the console's
 * ScheduleService, in the import's transaction (the task was created a moment earlier in it).
 * Message Nest sends them in task mode, and never caught up on runs it missed.
 *
 * Each gets an explicit zone: Message Nest ran them in its process's zone, which it stores
 * nowhere, so without one they would take the Herald machine's (UTC in a container) and a
 * 09:00 job would run eight hours late.
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
  noteOffsetMismatch(run);
}

/**
 * Message Nest's SQLite timestamps carry its process's offset: when they disagree with the zone
 * the schedules took, Message Nest most likely ran elsewhere, and the report says so.
 */
function noteOffsetMismatch(run: ImportRun) {
  const { zone, source } = run.timeZone;
  if (!run.report.scheduleZones.some((s) => s.source !== 'cron')) return;
  const mismatch = offsetMismatch(run.snapshot, zone);
  if (!mismatch) return;
  run.note(
    `Message Nest wrote its times at UTC${mismatch.written} (${mismatch.table} ${mismatch.id}), ` +
      `but ${zone} (${source === 'default' ? "Message Nest's default zone" : 'the zone asked for'}) ` +
      `was UTC${mismatch.zoneOffset} then, so Message Nest may have run in another zone: before ` +
      'importing, preview again with that zone; after, change the imported schedules’ zone on the Schedules page',
  );
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
  // A zone in the expression (CRON_TZ=) is the one Message Nest ran it in; else the import's.
  const zone: { timeZone: string; source: ScheduleZoneSource } = translated.timezone
    ? { timeZone: translated.timezone, source: 'cron' }
    : { timeZone: run.timeZone.zone, source: run.timeZone.source };
  let created;
  try {
    created = await run.deps.schedules.create(
      {
        name: scheduleName,
        taskId,
        cron: translated.cron,
        timezone: zone.timeZone,
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
  // The service answers the zone by its canonical name ("asia/shanghai" → "Asia/Shanghai").
  run.report.scheduleZones.push({ id, name, timeZone: created.timezone, source: zone.source });
  for (const note of notes) run.note(`Scheduled message "${name}" (${id}): ${note}.`);
  return null;
}
