import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

import type { SqlExecutor } from '../../db/sql';
import type { Clock } from '../../lib/clock';
import { errorMessage } from '../../lib/errors';
import { createLogger } from '../../lib/logger';
import type { DeliveryObserver } from '../../queue/delivery-state';
import { oldestDueAgeSeconds, readQueueStats } from './queue-stats';

const log = createLogger('metrics');

/** From a robot's quick answer to a slow SMTP relay and the 120 s attempt cut-off. */
const ATTEMPT_SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** An attempt that found no channel (deleted meanwhile, or loading it failed) has no kind. */
const NO_CHANNEL = 'none';

export interface HeraldMetricsDeps {
  /** The read connection: the queue gauges are read from committed state at scrape time. */
  read: SqlExecutor;
  clock: Clock;
  version: string;
}

/**
 * This process's metrics, in a registry of its own (never prom-client's global one), so
 * several Heralds in one process (tests, the desktop app restarting its server) never share or
 * re-register a metric. Counters count what this process did; the queue gauges read the
 * database, which every process shares.
 */
export class HeraldMetrics implements DeliveryObserver {
  readonly registry = new Registry();
  private readonly sendsAccepted: Counter<'api' | 'origin'>;
  private readonly deliveriesAccepted: Counter;
  private readonly attempts: Counter<'channel_kind' | 'status'>;
  private readonly attemptSeconds: Histogram<'channel_kind'>;
  private readonly depth: Gauge<'status'>;
  private readonly oldestDue: Gauge;
  private readonly queueUp: Gauge;

  constructor(deps: HeraldMetricsDeps) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'herald_build_info',
      help: 'Always 1; the version label says which Herald this is.',
      labelNames: ['version'],
      registers,
    }).set({ version: deps.version }, 1);
    this.sendsAccepted = new Counter({
      name: 'herald_sends_accepted_total',
      help: 'Sends accepted and committed, by send API (v1, v2) and origin (request, schedule).',
      labelNames: ['api', 'origin'],
      registers,
    });
    this.deliveriesAccepted = new Counter({
      name: 'herald_deliveries_accepted_total',
      help: 'Deliveries created by accepted sends (one per enabled instance and recipient).',
      registers,
    });
    this.attempts = new Counter({
      name: 'herald_delivery_attempts_total',
      help: 'Delivery attempts recorded, by channel kind and the status they left the delivery in (sent, retrying, failed).',
      labelNames: ['channel_kind', 'status'],
      registers,
    });
    this.attemptSeconds = new Histogram({
      name: 'herald_delivery_attempt_duration_seconds',
      help: 'How long an attempt took, from loading its channel to the platform answer.',
      labelNames: ['channel_kind'],
      buckets: ATTEMPT_SECONDS_BUCKETS,
      registers,
    });
    // The registry collects its metrics side by side: the three queue gauges share one read.
    let refreshing: Promise<void> | null = null;
    const refresh = () =>
      (refreshing ??= this.readQueue(deps).finally(() => {
        refreshing = null;
      }));
    this.depth = new Gauge({
      name: 'herald_deliveries_open',
      help: 'Deliveries not finished, by status (queued, retrying, sending), in the database.',
      labelNames: ['status'],
      registers,
      collect: refresh,
    });
    this.oldestDue = new Gauge({
      name: 'herald_delivery_oldest_due_age_seconds',
      help: 'How long the oldest due delivery (queued or retrying) has waited past its time; 0 when none is due.',
      registers,
      collect: refresh,
    });
    this.queueUp = new Gauge({
      name: 'herald_queue_stats_up',
      help: '1 when the queue gauges were read from the database at this scrape, 0 when the read failed.',
      registers,
      collect: refresh,
    });
  }

  private async readQueue(deps: HeraldMetricsDeps): Promise<void> {
    try {
      const s = await readQueueStats(deps.read);
      this.depth.set({ status: 'queued' }, s.queued);
      this.depth.set({ status: 'retrying' }, s.retrying);
      this.depth.set({ status: 'sending' }, s.sending);
      this.oldestDue.set(oldestDueAgeSeconds(s, deps.clock.now()));
      this.queueUp.set(1);
    } catch (err) {
      log.warn(`reading the queue for /metrics failed: ${errorMessage(err)}`);
      // No figure rather than a stale one.
      this.depth.reset();
      this.oldestDue.reset();
      this.queueUp.set(0);
    }
  }

  accepted(send: { api: string; scheduleId?: number | null }, deliveries: number): void {
    this.sendsAccepted.inc({ api: send.api, origin: send.scheduleId ? 'schedule' : 'request' });
    this.deliveriesAccepted.inc(deliveries);
  }

  recorded(outcome: { status: string; durationMs: number }, channelType: string | null): void {
    const kind = channelType ?? NO_CHANNEL;
    this.attempts.inc({ channel_kind: kind, status: outcome.status });
    this.attemptSeconds.observe({ channel_kind: kind }, Math.max(0, outcome.durationMs) / 1000);
  }

  /** The exposition text, and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
