import type { Clock } from './clock';
import { errorMessage } from './errors';

/** What a {@link DueLoop} does at each look, and how it learns when to look next. */
export interface DueWork {
  /** Does what is due now; answers how many rows it took (a full `batch`: look again at once). */
  tick(): Promise<number>;
  /** When the next thing comes due (epoch ms), or null when nothing waits. */
  nextDue(): Promise<number | null>;
  /** Rows a tick takes at most. */
  batch: number;
  /** Upper bound between two looks: another process's rows, a lost timer. */
  maxSleepMs: number;
  /** Lower bound between two looks, so a row that keeps failing is not retried in a spin. */
  minSleepMs: number;
  /** Where a failed look is reported, with what it was doing: "running due schedules". */
  report(message: string): void;
  what: string;
}

/**
 * A loop that looks at a table of due work when woken and otherwise sleeps until the next row
 * comes due (schedules, digests). One tick runs at a time: a wake during a tick asks for one
 * more after it, so nothing that came due meanwhile waits for the timer.
 */
export class DueLoop {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private ticking: Promise<unknown> | null = null;
  private tickAgain = false;

  constructor(
    private readonly clock: Clock,
    private readonly work: DueWork,
  ) {}

  /** Does what came due while stopped, then keeps time. */
  async start(): Promise<void> {
    this.running = true;
    this.wake();
    await this.ticking;
  }

  /** Stops the timer and waits for a tick under way, at most `timeoutMs`. */
  async stop(timeoutMs?: number): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (timeoutMs === undefined) {
      await this.ticking;
      return;
    }
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      this.ticking,
      new Promise<void>((resolve) => (timeout = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timeout);
  }

  /** Something changed or time may have passed: look now. */
  wake(): void {
    if (!this.running) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = this.loop().finally(() => {
      this.ticking = null;
    });
  }

  private async loop(): Promise<void> {
    do {
      this.tickAgain = false;
      try {
        if ((await this.work.tick()) === this.work.batch) this.tickAgain = true;
      } catch (err) {
        this.work.report(`${this.work.what} failed: ${errorMessage(err)}`);
      }
    } while (this.tickAgain && this.running);
    await this.arm();
  }

  private async arm(): Promise<void> {
    if (!this.running) return;
    let delay = this.work.maxSleepMs;
    try {
      const next = await this.work.nextDue();
      if (next !== null) {
        delay = Math.min(
          this.work.maxSleepMs,
          Math.max(this.work.minSleepMs, next - this.clock.now()),
        );
      }
    } catch (err) {
      this.work.report(
        `looking for the next due one (${this.work.what}) failed: ${errorMessage(err)}`,
      );
    }
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }
}
