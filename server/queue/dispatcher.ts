import { Op, type Sequelize } from 'sequelize';

import type { ChannelServices } from '../channels/channel-adapter';
import { DeliveryError } from '../channels/delivery-error';
import { adapterFor, type ChannelRegistry } from '../channels/registry';
import type { RetryPolicy } from '../config/settings-schema';
import { Delivery, type DeliveryStatus } from '../db/models/delivery';
import { DeliveryAttempt, type AttemptOutcome } from '../db/models/delivery-attempt';
import { Send, type SendStatus } from '../db/models/send';
import type { WriteLock } from '../db/sequelize';
import type { HeraldEvents } from '../events';
import type { Clock } from '../lib/clock';
import { errorMessage } from '../lib/errors';
import { createLogger } from '../lib/logger';
import { nextAttemptAt } from './backoff';
import { Pacer } from './pacer';

const log = createLogger('dispatcher');

/** A claim older than this belongs to a worker that died; the delivery is claimed again. */
const LEASE_MS = 5 * 60_000;
/** An adapter that neither resolves nor rejects is cut off here and counted as a transient failure. */
const ATTEMPT_TIMEOUT_MS = 120_000;
/** Upper bound between two looks at the table, in case a timer was lost. */
const MAX_IDLE_MS = 30_000;

export interface LoadedChannel {
  type: string;
  config: unknown;
}

export interface DispatcherDeps {
  sequelize: Sequelize;
  writeLock: WriteLock;
  registry: ChannelRegistry;
  services: ChannelServices;
  clock: Clock;
  events: HeraldEvents;
  retryPolicy(): RetryPolicy;
  loadChannel(id: number): Promise<LoadedChannel | null>;
  concurrency?: number;
  random?: () => number;
}

/** What the first (or any) attempt of a delivery came to. */
export interface AttemptResult {
  deliveryId: number;
  status: DeliveryStatus;
  error: string | null;
  reply: string | null;
}

interface Outcome {
  delivery: Delivery;
  outcome: AttemptOutcome;
  error: string | null;
  reply: string | null;
  startedAt: number;
  durationMs: number;
  retryAt: number | null;
}

/**
 * Claims due deliveries, runs their channel adapter and records every attempt. Everything it
 * needs is in the deliveries table, so a restart picks up exactly where the last run stopped.
 */
export class Dispatcher {
  private readonly deps: DispatcherDeps;
  private readonly concurrency: number;
  private readonly pacer = new Pacer();
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly waiters = new Map<number, Array<(r: AttemptResult) => void>>();
  private pending: Outcome[] = [];
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private pausedFlag = false;
  private ticking: Promise<void> | null = null;
  private tickAgain = false;

  constructor(deps: DispatcherDeps) {
    this.deps = deps;
    this.concurrency = deps.concurrency ?? 16;
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  /** Puts back deliveries a dead process left in flight, then starts the loop. */
  async start(): Promise<void> {
    await this.recover();
    this.running = true;
    this.wake();
  }

  async recover(): Promise<void> {
    await this.deps.writeLock.run(() =>
      this.deps.sequelize.query(
        `UPDATE deliveries SET status = CASE WHEN attempts > 0 THEN 'retrying' ELSE 'queued' END,
           lease_until = NULL WHERE status = 'sending'`,
      ),
    );
  }

  /** Stops claiming new work and waits (bounded) for attempts under way to be recorded. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const drain = (async () => {
      if (this.ticking) await this.ticking;
      await Promise.allSettled([...this.inFlight.values()]);
      await this.flush();
    })();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([drain, new Promise<void>((r) => (timeout = setTimeout(r, timeoutMs)))]);
    clearTimeout(timeout);
  }

  pause(): void {
    this.pausedFlag = true;
  }

  resume(): void {
    this.pausedFlag = false;
    this.wake();
  }

  /** New work arrived: look at the table now rather than at the next timer. */
  wake(): void {
    if (!this.running || this.pausedFlag) return;
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
   * driving a manual clock, and for the console's "retry now". Returns how many ran.
   */
  async runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.claim(this.concurrency);
      if (claimed.length === 0) break;
      total += claimed.length;
      await Promise.all(claimed.map((d) => this.track(d)));
    }
    await this.flush();
    return total;
  }

  /** Resolves with each delivery's next recorded attempt, or its state when the wait runs out. */
  async waitForAttempts(ids: number[], timeoutMs: number): Promise<Map<number, AttemptResult>> {
    const results = new Map<number, AttemptResult>();
    const promises = ids.map(
      (id) =>
        new Promise<void>((resolve) => {
          const list = this.waiters.get(id) ?? [];
          list.push((r) => {
            results.set(id, r);
            resolve();
          });
          this.waiters.set(id, list);
        }),
    );
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(promises),
      new Promise<void>((r) => (timeout = setTimeout(r, timeoutMs))),
    ]);
    clearTimeout(timeout);
    const missing = ids.filter((id) => !results.has(id));
    for (const id of missing) this.waiters.delete(id);
    if (missing.length > 0) {
      const rows = await Delivery.findAll({ where: { id: missing } });
      for (const row of rows) {
        results.set(row.id, {
          deliveryId: row.id,
          status: row.status,
          error: row.lastError,
          reply: row.reply,
        });
      }
    }
    return results;
  }

  private async loop(): Promise<void> {
    do {
      this.tickAgain = false;
      if (!this.running || this.pausedFlag) return;
      const free = this.concurrency - this.inFlight.size;
      if (free > 0) {
        try {
          const claimed = await this.claim(free);
          for (const d of claimed) void this.track(d).then(() => this.wake());
          if (claimed.length === free) this.tickAgain = true;
        } catch (err) {
          log.error(`claiming deliveries failed: ${errorMessage(err)}`);
        }
      }
    } while (this.tickAgain);
    await this.scheduleNext();
  }

  private async scheduleNext(): Promise<void> {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    let delay = MAX_IDLE_MS;
    try {
      const next = (await Delivery.min('nextAttemptAt', {
        where: { status: { [Op.in]: ['queued', 'retrying'] } },
      })) as number | string | null;
      if (next !== null && next !== undefined) {
        delay = Math.min(MAX_IDLE_MS, Math.max(0, Number(next) - this.deps.clock.now()));
      }
    } catch (err) {
      log.error(`looking for the next delivery failed: ${errorMessage(err)}`);
    }
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }

  private async claim(limit: number): Promise<Delivery[]> {
    if (limit <= 0) return [];
    const now = this.deps.clock.now();
    return this.deps.writeLock.run(async () => {
      const due = await Delivery.findAll({
        where: {
          [Op.or]: [
            { status: { [Op.in]: ['queued', 'retrying'] }, nextAttemptAt: { [Op.lte]: now } },
            { status: 'sending', leaseUntil: { [Op.lt]: now } },
          ],
          ...(this.inFlight.size > 0 ? { id: { [Op.notIn]: [...this.inFlight.keys()] } } : {}),
        },
        order: [
          ['nextAttemptAt', 'ASC'],
          ['id', 'ASC'],
        ],
        limit,
      });
      if (due.length === 0) return [];
      await Delivery.update(
        { status: 'sending', leaseUntil: now + LEASE_MS },
        { where: { id: due.map((d) => d.id) } },
      );
      for (const d of due) {
        d.status = 'sending';
        d.leaseUntil = now + LEASE_MS;
      }
      return due;
    });
  }

  private track(delivery: Delivery): Promise<void> {
    const p = this.attempt(delivery)
      .catch((err) => log.error(`delivery ${delivery.id}: ${errorMessage(err)}`))
      .finally(() => this.inFlight.delete(delivery.id));
    this.inFlight.set(delivery.id, p);
    return p;
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const channel = await this.deps.loadChannel(delivery.channelId);
    const adapter = channel ? adapterFor(this.deps.registry, channel.type) : undefined;
    const startedAt = this.deps.clock.now();
    if (!channel || !adapter) {
      const why = channel ? `unknown channel kind "${channel.type}"` : 'the channel was deleted';
      await this.record({
        delivery,
        outcome: 'permanent',
        error: why,
        reply: null,
        startedAt,
        durationMs: 0,
        retryAt: null,
      });
      return;
    }
    const limit = adapter.rateLimit?.(channel.config);
    if (limit) {
      const wait = this.pacer.reserve(limit, startedAt);
      if (wait > 0) {
        await this.defer(delivery, startedAt + wait);
        return;
      }
    }
    let outcome: Outcome;
    try {
      const receipt = await withTimeout(
        adapter.send(
          channel.config,
          {
            deliveryId: delivery.id,
            channelId: delivery.channelId,
            title: delivery.title,
            content: delivery.content,
            contentType: delivery.contentType,
            url: delivery.url,
            recipient: delivery.recipient,
            mentions: delivery.mentions,
          },
          this.deps.services,
        ),
        ATTEMPT_TIMEOUT_MS,
      );
      const end = this.deps.clock.now();
      outcome = {
        delivery,
        outcome: 'sent',
        error: null,
        reply: receipt.reply,
        startedAt,
        durationMs: end - startedAt,
        retryAt: null,
      };
    } catch (err) {
      const end = this.deps.clock.now();
      const de = err instanceof DeliveryError ? err : DeliveryError.transient(errorMessage(err));
      const attemptNo = delivery.attempts + 1;
      const retryAt = de.retryable
        ? nextAttemptAt(attemptNo, this.deps.retryPolicy(), end, de.retryAfterMs, this.deps.random)
        : null;
      outcome = {
        delivery,
        outcome: de.retryable ? 'transient' : 'permanent',
        error:
          de.retryable && retryAt === null
            ? `gave up after ${attemptNo} attempts: ${de.message}`
            : de.message,
        reply: de.reply ?? null,
        startedAt,
        durationMs: end - startedAt,
        retryAt,
      };
    }
    await this.record(outcome);
  }

  /** Paced: back in the queue for later, and not counted as an attempt. */
  private async defer(delivery: Delivery, at: number): Promise<void> {
    const status: DeliveryStatus = delivery.attempts > 0 ? 'retrying' : 'queued';
    await this.deps.writeLock.run(() =>
      Delivery.update(
        { status, nextAttemptAt: at, leaseUntil: null },
        { where: { id: delivery.id } },
      ),
    );
  }

  /**
   * Queues an outcome for the next group commit: outcomes that finish together are written in
   * one transaction, which is what keeps a burst from costing one commit per delivery.
   */
  private record(outcome: Outcome): Promise<void> {
    this.pending.push(outcome);
    return this.flush();
  }

  private flush(): Promise<void> {
    if (this.flushing)
      return this.flushing.then(() => (this.pending.length ? this.flush() : undefined));
    if (this.pending.length === 0) return Promise.resolve();
    this.flushing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.commit())
      .finally(() => {
        this.flushing = null;
      });
    return this.flushing;
  }

  private async commit(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const results: AttemptResult[] = [];
    const sendStatuses = new Map<number, SendStatus>();
    await this.deps.writeLock.run(() =>
      this.deps.sequelize.transaction(async (transaction) => {
        for (const o of batch) {
          const d = o.delivery;
          const attemptNo = d.attempts + 1;
          await DeliveryAttempt.create(
            {
              deliveryId: d.id,
              attempt: attemptNo,
              outcome: o.outcome,
              error: o.error,
              reply: o.reply,
              durationMs: Math.max(0, Math.round(o.durationMs)),
              startedAt: new Date(o.startedAt),
            },
            { transaction },
          );
          const status: DeliveryStatus =
            o.outcome === 'sent' ? 'sent' : o.retryAt === null ? 'failed' : 'retrying';
          await Delivery.update(
            {
              status,
              attempts: attemptNo,
              nextAttemptAt: o.retryAt ?? d.nextAttemptAt,
              leaseUntil: null,
              lastError: o.error,
              reply: o.reply,
              sentAt: status === 'sent' ? new Date(o.startedAt + o.durationMs) : null,
            },
            { where: { id: d.id }, transaction },
          );
          d.status = status;
          d.attempts = attemptNo;
          results.push({ deliveryId: d.id, status, error: o.error, reply: o.reply });
        }
        const sendIds = [...new Set(batch.map((o) => o.delivery.sendId))];
        for (const [id, status] of await rollUpSendStatus(sendIds, transaction)) {
          sendStatuses.set(id, status);
        }
      }),
    );
    for (const o of batch) {
      const r = results.find((x) => x.deliveryId === o.delivery.id);
      if (!r) continue;
      this.deps.events.emit('delivery', {
        id: o.delivery.id,
        sendId: o.delivery.sendId,
        status: r.status,
      });
      const list = this.waiters.get(r.deliveryId);
      if (list) {
        this.waiters.delete(r.deliveryId);
        for (const w of list) w(r);
      }
    }
    for (const [id, status] of sendStatuses) this.deps.events.emit('send', { id, status });
  }
}

/** How many deliveries of each send are in each status, in one grouped query. */
export async function deliveryStatusCounts(
  sendIds: number[],
  transaction?: import('sequelize').Transaction,
): Promise<Map<number, Partial<Record<DeliveryStatus, number>>>> {
  const counts = new Map<number, Partial<Record<DeliveryStatus, number>>>();
  if (sendIds.length === 0) return counts;
  const rows = (await Delivery.findAll({
    attributes: [
      'sendId',
      'status',
      [Delivery.sequelize!.fn('COUNT', Delivery.sequelize!.col('id')), 'n'],
    ],
    where: { sendId: sendIds },
    group: ['sendId', 'status'],
    raw: true,
    transaction,
  })) as unknown as Array<{ sendId: number; status: DeliveryStatus; n: number }>;
  for (const row of rows) {
    const c = counts.get(row.sendId) ?? {};
    c[row.status] = Number(row.n);
    counts.set(row.sendId, c);
  }
  return counts;
}

/**
 * Recomputes each send's status from its deliveries and stores the ones that changed:
 * pending while any delivery is unfinished, then sent, partial or failed.
 */
export async function rollUpSendStatus(
  sendIds: number[],
  transaction?: import('sequelize').Transaction,
): Promise<Map<number, SendStatus>> {
  const changed = new Map<number, SendStatus>();
  if (sendIds.length === 0) return changed;
  const counts = await deliveryStatusCounts(sendIds, transaction);
  const sends = await Send.findAll({
    where: { id: sendIds },
    attributes: ['id', 'status'],
    transaction,
  });
  for (const send of sends) {
    const status = statusFromCounts(counts.get(send.id) ?? {});
    if (status !== send.status) {
      await Send.update({ status }, { where: { id: send.id }, transaction });
      changed.set(send.id, status);
    }
  }
  return changed;
}

export function statusFromCounts(c: Record<string, number>): SendStatus {
  const sent = c.sent ?? 0;
  const failed = c.failed ?? 0;
  const open = (c.queued ?? 0) + (c.sending ?? 0) + (c.retrying ?? 0);
  if (open > 0) return 'pending';
  if (failed === 0) return sent > 0 ? 'sent' : 'pending';
  return sent > 0 ? 'partial' : 'failed';
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_r, reject) => {
      timer = setTimeout(
        () => reject(DeliveryError.transient(`no answer within ${ms / 1000} s`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}
