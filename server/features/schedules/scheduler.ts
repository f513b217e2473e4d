import { Op } from 'sequelize';

import { Schedule } from '../../db/models';
import { DueLoop } from '../../lib/due-loop';
import { errorMessage } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import type { HeraldParts } from '../../parts';
import { nextRunAfter } from './due-times';

const log = createLogger('schedules');

/** Upper bound between two looks at the table, in case a timer or a wake-up was lost. */
const MAX_SLEEP_MS = 30_000;
/**
 * A run seen this late counts as missed (the computer slept or Herald was busy), like one that
 * came due while Herald was closed: the schedule's catch-up choice decides whether it is sent.
 */
export const MISSED_AFTER_MS = 5 * 60_000;
/** Schedules run per look at the table; the rest follow at once. */
const BATCH = 100;

/** What Scheduler uses of the composed parts. */
export type SchedulerDeps = Pick<HeraldParts, 'clock' | 'events' | 'writeLock' | 'scheduleRunner'>;

/**
 * Fires each due schedule once. The run is claimed with one conditional UPDATE (next_run_at
 * moves on only where it still holds the due time that was read), so overlapping ticks, or
 * several Herald processes on one database, never send a run twice. A run is claimed before it
 * is sent: a crash in between loses that run rather than sending it again.
 */
export class Scheduler {
  private startedAt = 0;
  private readonly loop: DueLoop;
  private readonly onChange = () => this.wake();

  constructor(private readonly deps: SchedulerDeps) {
    this.loop = new DueLoop(deps.clock, {
      what: 'running due schedules',
      batch: BATCH,
      maxSleepMs: MAX_SLEEP_MS,
      minSleepMs: 0,
      report: (message) => log.error(message),
      tick: () => this.tick(),
      nextDue: async () => {
        const next = (await Schedule.min('nextRunAt', { where: { enabled: true } })) as
          number | string | null;
        return next === null || next === undefined ? null : Number(next);
      },
    });
  }

  /** Sends what was missed while Herald was closed (per catch-up choice), then keeps time. */
  async start(): Promise<void> {
    this.startedAt = this.deps.clock.now();
    this.deps.events.on('schedule', this.onChange);
    await this.loop.start();
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    this.deps.events.off('schedule', this.onChange);
    await this.loop.stop(timeoutMs);
  }

  /** A schedule changed or time may have passed: look at the table now. */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Runs every schedule due now and answers how many runs it claimed (sent or skipped). Safe to
   * call while another tick runs: each run is claimed once. Tests driving a manual clock call it.
   */
  async tick(): Promise<number> {
    const now = this.deps.clock.now();
    const due = await Schedule.findAll({
      where: { enabled: true, nextRunAt: { [Op.lte]: now } },
      order: [['nextRunAt', 'ASC']],
      limit: BATCH,
    });
    let claimed = 0;
    for (const schedule of due) {
      if (await this.claimRun(schedule, now)) claimed++;
    }
    return claimed;
  }

  /** Claims the due run (or skips it, per catch-up) and sends it; false when another tick won. */
  private async claimRun(schedule: Schedule, now: number): Promise<boolean> {
    const dueAt = schedule.nextRunAt as number;
    const missed = dueAt < this.startedAt || now - dueAt > MISSED_AFTER_MS;
    const skip = missed && schedule.catchUp === 'skip';
    let next: number | null = null;
    let problem: string | null = null;
    try {
      // Several missed cron times give one run: the next due time is the first after now.
      next = nextRunAfter(schedule, now);
    } catch (err) {
      problem = `stopped: its cron expression no longer parses (${errorMessage(err)})`;
    }
    const claim = {
      nextRunAt: next,
      enabled: next !== null,
      ...(skip
        ? {
            lastError: `skipped the run due at ${new Date(dueAt).toISOString()}: Herald was not running then (catch-up: skip)`,
          }
        : { lastRunAt: now, lastError: problem }),
    };
    const [changed] = await this.deps.writeLock.run(() =>
      Schedule.update(claim, { where: { id: schedule.id, enabled: true, nextRunAt: dueAt } }),
    );
    if (changed !== 1) return false;
    if (!skip) await this.send(schedule);
    this.deps.events.emit('scheduleRun', { id: schedule.id });
    return true;
  }

  /** Sends a claimed run and records its send, or why it was refused. */
  private async send(schedule: Schedule): Promise<void> {
    let result: { lastSendId: number; lastError: null } | { lastError: string };
    try {
      result = { lastSendId: await this.deps.scheduleRunner.send(schedule), lastError: null };
    } catch (err) {
      result = { lastError: errorMessage(err) };
      log.warn(`schedule ${schedule.id} (${schedule.name}) did not send: ${errorMessage(err)}`);
    }
    await this.deps.writeLock.run(() => Schedule.update(result, { where: { id: schedule.id } }));
  }
}
