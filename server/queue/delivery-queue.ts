import { createLogger } from '../lib/logger';
import { errorMessage } from '../lib/errors';
import type { ClaimedDelivery, DeliveryState, OutcomeRecord } from './delivery-state';
import type { AttemptWaiters } from './waiters';

const log = createLogger('delivery-queue');

/** Waits between tries to record an outcome the database refused; grows to the cap. */
const RECORD_RETRY_FIRST_MS = 100;
const RECORD_RETRY_MAX_MS = 30_000;

/**
 * The dispatcher's side of delivery state: claims that skip what this process already has in
 * hand, and outcomes that are recorded no matter what. An attempt that reached the platform
 * must not be attempted again because its record failed, so a failed record is tried again
 * (the delivery stays claimed and in hand meanwhile) until it is written or the queue stops;
 * only a stop or a crash leaves it to startup recovery, which is where "at least once" comes
 * from.
 */
export class DeliveryQueue {
  private stopping = false;

  constructor(
    private readonly state: DeliveryState,
    private readonly waiters: AttemptWaiters,
  ) {}

  claim(limit: number, inHand: Iterable<number>): Promise<ClaimedDelivery[]> {
    return this.state.claim(limit, [...inHand]);
  }

  async record(outcome: OutcomeRecord, channelType: string | null): Promise<void> {
    for (let wait = RECORD_RETRY_FIRST_MS; ; wait = Math.min(wait * 2, RECORD_RETRY_MAX_MS)) {
      try {
        const r = await this.state.record(outcome, channelType);
        if (!r.recorded) {
          log.warn(
            r.leaseLost
              ? `delivery ${outcome.id}: its lease ran out and another claim took it over; this attempt's outcome (${outcome.status}) was not recorded`
              : `delivery ${outcome.id} was no longer being sent; its outcome was not recorded`,
          );
          return;
        }
        this.waiters.notify({
          deliveryId: r.id,
          status: r.status,
          error: outcome.error,
          reply: outcome.reply,
        });
        return;
      } catch (err) {
        if (this.stopping) throw err;
        log.error(
          `recording delivery ${outcome.id} failed (${errorMessage(err)}); trying again in ${wait} ms`,
        );
        await new Promise((r) => setTimeout(r, wait).unref());
      }
    }
  }

  async defer(
    claim: Pick<ClaimedDelivery, 'id' | 'lease'>,
    at: number,
    reason?: string,
  ): Promise<void> {
    await this.state.defer(claim, at, reason);
  }

  recover(): Promise<number> {
    return this.state.recover();
  }

  /** Outcome records still retrying give up; their deliveries are recovered at next start. */
  stop(): void {
    this.stopping = true;
  }
}
