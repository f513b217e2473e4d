import type { ScheduleService } from './schedule-service';
import type { CatchUp } from '../../db/models/schedule';
import { AppError } from '../../lib/errors';

/**
 * A Message Nest cron message (table `cron_messages`) as the importer hands it over, its task
 * already mapped to Herald's id. Everything else is Message Nest's own values.
 */
export interface ImportedSchedule {
  /** `cron_messages.name`. */
  name: string;
  /** The Herald task that stands for `cron_messages.task_id`; null when that task is gone. */
  taskId: number | null;
  /** Message Nest cron messages only send through tasks; set this instead for a template. */
  templateId?: number | null;
  /**
   * `cron_messages.cron` verbatim: five fields or an @shortcut, optionally behind a
   * `CRON_TZ=<zone> ` (or `TZ=<zone> `) prefix; `@every <duration>` too where it fits a cron.
   */
  cron: string;
  /** The zone Message Nest ran in (its process zone; Docker: Asia/Shanghai); a prefix wins. */
  timezone?: string;
  /** `cron_messages.title`; empty falls back to the name. */
  title: string;
  /** `cron_messages.content`, sent as text (Message Nest sends it as the V1 `text`). */
  content: string;
  /** `cron_messages.url`; '' means none. */
  url?: string | null;
  /** `cron_messages.enable` as a boolean. */
  enabled: boolean;
  /** Default 'skip': Message Nest never sent runs it missed, so nothing changes by moving. */
  catchUp?: CatchUp;
}

export type ImportScheduleResult =
  { created: true; id: number; notes: string[] } | { created: false; reason: string };

/**
 * Creates one schedule from an imported cron message, through the same checks as the console.
 * A message that cannot be brought over is not an error: the answer says why, for the report.
 */
export async function createScheduleFromImport(
  schedules: ScheduleService,
  input: ImportedSchedule,
): Promise<ImportScheduleResult> {
  if (input.taskId === null && (input.templateId ?? null) === null) {
    return { created: false, reason: 'its task no longer exists in Message Nest' };
  }
  const translated = translateMessageNestCron(input.cron);
  if ('reason' in translated) return { created: false, reason: translated.reason };
  const notes = [...translated.notes];
  let enabled = input.enabled;
  if (translated.neverRan && enabled) {
    enabled = false;
    notes.push(
      `imported disabled: Message Nest saved "${input.cron.trim()}" but never ran it (6 fields); Herald reads the first as seconds, so check it before enabling`,
    );
  }
  const name = input.name.trim().slice(0, 100) || 'Imported schedule';
  try {
    const created = await schedules.create({
      name,
      ...(input.templateId ? { templateId: input.templateId } : { taskId: input.taskId }),
      cron: translated.cron,
      ...((translated.timezone ?? input.timezone)
        ? { timezone: translated.timezone ?? input.timezone }
        : {}),
      title: input.title.trim() || name,
      ...(input.templateId ? {} : { text: input.content }),
      url: input.url ? input.url : null,
      enabled,
      catchUp: input.catchUp ?? 'skip',
    });
    return { created: true, id: created.id, notes };
  } catch (err) {
    if (err instanceof AppError && err.code < 500) return { created: false, reason: err.message };
    throw err;
  }
}

type Translated =
  { cron: string; timezone?: string; notes: string[]; neverRan: boolean } | { reason: string };

/** Message Nest's spec (robfig/cron's standard parser) in Herald's terms. */
export function translateMessageNestCron(spec: string): Translated {
  let rest = spec.trim();
  let timezone: string | undefined;
  const prefix = /^(?:CRON_TZ|TZ)=(\S+)\s+/.exec(rest);
  if (prefix) {
    timezone = prefix[1];
    rest = rest.slice(prefix[0].length).trim();
  }
  const every = /^@every\s+(\S+)$/i.exec(rest);
  if (every) {
    const cron = everyAsCron(every[1]);
    if (!cron) {
      return {
        reason: `"${spec.trim()}" runs every ${every[1]} counted from Message Nest's start, which no cron expression can say`,
      };
    }
    return {
      cron,
      timezone,
      neverRan: false,
      notes: [`"@every ${every[1]}" became "${cron}" (aligned to the clock)`],
    };
  }
  const fields = rest.startsWith('@') ? 5 : rest.split(/\s+/).length;
  // Message Nest's API lets 6 and 7 fields through, but its scheduler refuses them.
  if (fields === 7) return { reason: `"${spec.trim()}" has 7 fields; Message Nest never ran it` };
  return { cron: rest, timezone, notes: [], neverRan: fields === 6 };
}

/** A Go duration that divides the clock evenly, as a cron expression; null otherwise. */
function everyAsCron(duration: string): string | null {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  if (!match || duration === '') return null;
  const seconds = Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  if (seconds <= 0) return null;
  if (seconds < 60) return 60 % seconds === 0 ? `*/${seconds} * * * * *` : null;
  if (seconds % 60 !== 0) return null;
  const minutes = seconds / 60;
  if (minutes < 60) return 60 % minutes === 0 ? `*/${minutes} * * * *` : null;
  if (minutes % 60 !== 0) return null;
  const hours = minutes / 60;
  if (hours === 24) return '0 0 * * *';
  return hours < 24 && 24 % hours === 0 ? `0 */${hours} * * *` : null;
}
