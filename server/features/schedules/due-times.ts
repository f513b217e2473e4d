import { nextCronRuns } from './cron';

/** What decides when a schedule comes due. */
export interface Timing {
  enabled: boolean;
  cron: string | null;
  /** A one-time run (epoch ms), when there is no cron expression. */
  runAt: number | null;
  timezone: string;
}

/**
 * Where next_run_at stands for a schedule as it is now: the next cron time after `now`, the
 * one-time run while it has not happened, or null (disabled, or nothing left to run).
 */
export function plannedNextRun(timing: Timing, now: number): number | null {
  if (!timing.enabled) return null;
  if (timing.cron !== null) return nextCronRuns(timing.cron, timing.timezone, now, 1)[0] ?? null;
  return timing.runAt;
}

/** The due time after a run at `now`: the next cron time; a one-time schedule has none. */
export function nextRunAfter(timing: Timing, now: number): number | null {
  if (timing.cron === null) return null;
  return nextCronRuns(timing.cron, timing.timezone, now, 1)[0] ?? null;
}
