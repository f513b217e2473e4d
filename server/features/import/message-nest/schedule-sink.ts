import type { Transaction } from 'sequelize';

/**
 * One Message Nest cron message as the importer hands it to the schedules feature (issue 13,
 * part B). Message Nest sends it in task mode: `title`, `text` and `url` on the V1 path.
 */
export interface ImportedSchedule {
  /** Where it came from, for the schedule's own records if it keeps any. */
  source: { system: 'message-nest'; table: 'cron_messages'; id: string };
  name: string;
  /** The Herald task (already imported in the same transaction) that sends it. */
  taskId: number;
  /**
   * The expression as Message Nest stored it: 5 fields, `@daily`-style shortcuts,
   * `@every <duration>`, optionally prefixed `CRON_TZ=<zone> ` (robfig/cron v3 syntax).
   */
  cron: string;
  /** Null: Message Nest ran it in its process's zone, so the schedule takes Herald's default. */
  timezone: string | null;
  title: string;
  text: string;
  url: string | null;
  enabled: boolean;
  /** Message Nest never caught up on runs missed while it was down. */
  missedRuns: 'skip';
  createdAt: Date | null;
}

/**
 * Creates the schedule inside the import's transaction and says which row it became; throws
 * `ScheduleRefused` when it cannot take it (e.g. an expression it does not read), which the
 * report lists as skipped with that reason. Any other error fails the whole import.
 */
export type ScheduleSink = (
  schedule: ImportedSchedule,
  transaction: Transaction,
) => Promise<{ table: string; id: number }>;

export class ScheduleRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ScheduleRefused';
  }
}
