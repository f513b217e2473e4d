import type { AdapterRuntime } from '../channels/channel-adapter';
import type { ChannelRegistry } from '../channels/registry';
import type { RetryPolicy } from '../config/settings-schema';
import type { Clock } from '../lib/clock';
import { crashPoint } from '../lib/crash-point';
import { errorMessage } from '../lib/errors';
import { createLogger } from '../lib/logger';
import { runAttempt, type AttemptDeps, type DeliveryKind, type LoadedChannel } from './attempt';
import { DeliveryQueue } from './delivery-queue';
import type { ClaimedDelivery, DeliveryState } from './delivery-state';
import type { DeliveryStatus } from './delivery-transitions';
import { Pacer, type ChannelPacer } from './pacer';
import { AttemptWaiters, type AttemptResult } from './waiters';

export type { AttemptResult, LoadedChannel };

const log = createLogger('dispatcher');

/** The statuses an attempt ends in (a requeue's `queued` is not an attempt). */
const ATTEMPT_OUTCOMES = new Set<DeliveryStatus>(['sent', 'failed', 'retrying', 'suppressed']);

/** Upper bound between two looks at the table, in case a timer was lost. */
const MAX_IDLE_MS = 30_000;

export interface DispatcherDeps {
  state: DeliveryState;
  registry: ChannelRegistry;
  runtime: AdapterRuntime;
  clock: Clock;
  retryPolicy(): RetryPolicy;
  loadChannel(id: number): Promise<LoadedChannel | null>;
  /** A send's stored files by id (AttemptDeps.loadAttachments); unset: deliveries carry none. */
  loadAttachments?: AttemptDeps['loadAttachments'];
  /** Deliveries of kinds that are not a channel's (Web Push), by kind. */
  deliveryKinds?: ReadonlyMap<string, DeliveryKind>;
  /** Quiet-hours rules, asked before each channel attempt (AttemptDeps.quietHours). */
  quietHours?: AttemptDeps['quietHours'];
  /** Attempts under way at once. */
  concurrency?: number;
  /** Where channels' rate windows are kept; unset, this process's memory. */
  pacer?: ChannelPacer;
  random?: () => number;
  /** Told when a claim leaves every slot busy: the delivery thread may take over (auto). */
  onSaturated?: () => void;
}

/** Another dispatcher that claims in this one's place: the delivery thread's, seen from here. */
export interface DispatchElsewhere {
  wake(): void;
  pause(): void;
  resume(): void;
}

/**
 * The delivery loop: claims due deliveries in batches, runs each attempt, hands outcomes to
 * the delivery queue. Everything it needs is in the deliveries table, so a restart picks up
 * exactly where the last run stopped.
 */
export class Dispatcher {
  private readonly deps: DispatcherDeps;
  /** Attempts under way at once (the delivery thread's dispatcher is given the same). */
  readonly concurrency: number;
  private readonly waiters = new AttemptWaiters();
  private readonly queue: DeliveryQueue;
  private readonly attemptDeps: AttemptDeps;
  /** Claimed and not yet recorded: never claimed again meanwhile, waited for on stop. */
  private readonly inFlight = new Map<number, Promise<void>>();
  /** Of those, the ones whose adapter call is under way; `concurrency` bounds these. */
  private attempting = 0;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private pausedFlag = false;
  private ticking: Promise<void> | null = null;
  private tickAgain = false;
  /** While set, the delivery thread claims instead of this loop (handOver). */
  private elsewhere: DispatchElsewhere | null = null;

  constructor(deps: DispatcherDeps) {
    this.deps = deps;
    this.concurrency = deps.concurrency ?? 64;
    this.queue = new DeliveryQueue(deps.state, this.waiters);
    this.attemptDeps = { ...deps, pacer: deps.pacer ?? new Pacer() };
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  /**
   * Puts back deliveries a dead process left in flight, then starts the loop. The delivery
   * thread's dispatcher starts without recovery: the `sending` rows it would put back are
   * this process's own attempts under way.
   */
  async start(options: { recover?: boolean } = {}): Promise<void> {
    if (options.recover !== false) await this.recover();
    this.running = true;
    this.wake();
  }

  async recover(): Promise<void> {
    await this.queue.recover();
  }

  /** Stops claiming new work and waits (bounded) for attempts under way to be recorded. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const drain = (async () => {
      if (this.ticking) await this.ticking;
      await Promise.allSettled([...this.inFlight.values()]);
    })();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([drain, new Promise<void>((r) => (timeout = setTimeout(r, timeoutMs)))]);
    clearTimeout(timeout);
    this.queue.stop();
  }

  pause(): void {
    this.pausedFlag = true;
    this.elsewhere?.pause();
  }

  resume(): void {
    this.pausedFlag = false;
    this.elsewhere?.resume();
    this.wake();
  }

  /**
   * From now on `other` claims and this loop does not; the attempts this one has under way
   * finish and are recorded here. No delivery is attempted twice by the move: a claimed one
   * stays `sending` under its lease, which the other dispatcher never takes.
   */
  handOver(other: DispatchElsewhere): void {
    this.elsewhere = other;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pausedFlag) other.pause();
    else other.resume();
  }

  /** This loop claims again (the other dispatcher stopped, or its thread ended). */
  takeBack(): void {
    this.elsewhere = null;
    this.wake();
  }

  /** Attempts are under way or waiting to be recorded. */
  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** Claiming happens on the delivery thread now. */
  get handedOver(): boolean {
    return this.elsewhere !== null;
  }

  /** The delivery thread recorded an attempt: a V1 caller waiting for it here is answered. */
  recordedOnThread(result: AttemptResult): void {
    this.waiters.notify(result);
  }

  /** New work arrived: look at the table now rather than at the next timer. */
  wake(): void {
    if (!this.running || this.pausedFlag) return;
    if (this.elsewhere) {
      this.elsewhere.wake();
      return;
    }
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = this.loop().finally(() => {
      this.ticking = null;
    });
  }

  /**
   * Runs every delivery that is due now and waits for all of them to be recorded; for tests
   * driving a manual clock (the console's "retry now" requeues and wakes the loop instead).
   * Returns how many ran.
   */
  async runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.queue.claim(this.concurrency, this.inFlight.keys());
      if (claimed.length === 0) break;
      total += claimed.length;
      await Promise.all(claimed.map((d) => this.track(d)));
    }
    return total;
  }

  /** Resolves with each delivery's next recorded attempt, or its state when the wait runs out. */
  waitForAttempts(ids: number[], timeoutMs: number): Promise<Map<number, AttemptResult>> {
    return this.waiters.wait(ids, timeoutMs, async (missing) =>
      (await this.deps.state.current(missing)).map((row) => ({
        deliveryId: row.id,
        status: row.status,
        error: row.lastError,
        reply: row.reply,
      })),
    );
  }

  /**
   * Another process recorded an attempt of a delivery (its event came by the database's
   * NOTIFY): a V1 caller here waiting for it is answered now, with the status the event
   * carries and the error and reply as the row holds them.
   */
  async recordedElsewhere(event: { id: number; status: DeliveryStatus }): Promise<void> {
    if (!ATTEMPT_OUTCOMES.has(event.status) || !this.waiters.waitsFor(event.id)) return;
    try {
      const [row] = await this.deps.state.current([event.id]);
      this.waiters.notify({
        deliveryId: event.id,
        status: event.status,
        error: row?.lastError ?? null,
        reply: row?.reply ?? null,
      });
    } catch (err) {
      // The wait's own end reads the state again.
      log.warn(`reading delivery ${event.id} for a waiting V1 caller failed: ${errorMessage(err)}`);
    }
  }

  private async loop(): Promise<void> {
    do {
      this.tickAgain = false;
      if (!this.running || this.pausedFlag || this.elsewhere) return;
      // A finished attempt frees its slot before its record is committed; records still
      // pending (the writer is slow or failing) hold back new claims past twice the slots.
      const free = Math.min(
        this.concurrency - this.attempting,
        2 * this.concurrency - this.inFlight.size,
      );
      if (free > 0) {
        try {
          const claimed = await this.queue.claim(free, this.inFlight.keys());
          for (const d of claimed) void this.track(d).then(() => this.wake());
          if (claimed.length === free) this.tickAgain = true;
          if (claimed.length > 0 && this.attempting >= this.concurrency) {
            this.deps.onSaturated?.();
          }
        } catch (err) {
          log.error(`claiming deliveries failed: ${errorMessage(err)}`);
        }
      }
    } while (this.tickAgain);
    await this.scheduleNext();
    // A wake-up during that read (a send committed after it began) found the loop still
    // running and only asked for another round: give it, or it waits for the idle timer.
    if (this.tickAgain) return this.loop();
  }

  private async scheduleNext(): Promise<void> {
    if (!this.running || this.elsewhere) return;
    // Each attempt under way wakes the loop when it ends, which comes back here: under load
    // that is thousands of times a second, and only the last one needs the next due time.
    if (this.inFlight.size > 0) return;
    if (this.timer) clearTimeout(this.timer);
    let delay = MAX_IDLE_MS;
    try {
      const next = await this.deps.state.nextDueAt();
      if (next !== null) {
        delay = Math.min(MAX_IDLE_MS, Math.max(0, next - this.deps.clock.now()));
      }
    } catch (err) {
      log.error(`looking for the next delivery failed: ${errorMessage(err)}`);
    }
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }

  private track(delivery: ClaimedDelivery): Promise<void> {
    const p = this.attempt(delivery)
      .catch((err) => log.error(`delivery ${delivery.id}: ${errorMessage(err)}`))
      .finally(() => this.inFlight.delete(delivery.id));
    this.inFlight.set(delivery.id, p);
    return p;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    this.attempting += 1;
    let run;
    try {
      run = await runAttempt(delivery, this.attemptDeps);
    } finally {
      this.attempting -= 1;
      this.wake();
    }
    crashPoint('during-delivery');
    if ('deferUntil' in run) await this.queue.defer(delivery, run.deferUntil, run.reason);
    else await this.queue.record(run.outcome, run.channelType);
  }
}
