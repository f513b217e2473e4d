import { insertSends } from '../../queue/store/hot-path';
import { acceptSends } from '../../queue/delivery-programs';
import type { AcceptInput, Accepted } from '../../queue/delivery-state';
import {
  countSuppressed,
  setFirstSend,
  takeGate,
  type DedupGate,
} from '../../queue/store/dedup-windows';
import type { HeraldParts } from '../../parts';
import { DigestCloser } from './digest-closer';
import { windowUntil, type DigestRule } from './digest-rule';
import { DigestRules } from './digest-rules';
import { joinDigest, type DigestSlot } from './digest-store';

/** Urgent sends skip a digest; a send without a priority is collected. */
const collects = (rule: DigestRule, priority: number | null) =>
  priority === null || priority < rule.priorityThreshold;

/**
 * What collecting a send came to: collected (the earliest end of its digests' windows, and the
 * deliveries stored for the instances that do not collect), or suppressed by its dedup key.
 */
export type Collected =
  | { suppressed: false; sendId: number; until: number; accepted: Accepted | null }
  | { suppressed: true; sendId: number; firstSendId: number };

/**
 * Where a send's digests are: the task's or template's own (`instanceIds` null: the whole send
 * is collected), or those of the instances that have a rule of their own (`instanceIds`: their
 * deliveries are collected, the other instances' delivered at once).
 */
export interface DigestPlan {
  slots: DigestSlot[];
  instanceIds: ReadonlySet<number> | null;
}

/** What the send path uses of digests (server/features/sending/store-send.ts). */
export interface DigestCollector {
  /** The digests a send joins, or null: it is delivered at once. */
  planFor(
    source: { taskId: number } | { templateId: number },
    instanceIds: readonly number[],
    priority: number | null,
    digestKey: string | undefined,
  ): Promise<DigestPlan | null>;
  /**
   * Stores the send in its digests (after its dedup gate, when it has one): `collected` when
   * `build` gives it no delivery, else accepted with those deliveries.
   */
  collect(
    plan: DigestPlan,
    gate: DedupGate | null,
    build: (repeats: number) => AcceptInput,
  ): Promise<Collected>;
}

export type DigestServiceDeps = Pick<
  HeraldParts,
  | 'sequelize'
  | 'writeLock'
  | 'clock'
  | 'events'
  | 'dispatcher'
  | 'registry'
  | 'settings'
  | 'listenUrl'
>;

/**
 * Digests (issue 46 §2; docs/architecture.md "Digests"): sends of a task or template with a
 * digest rule are stored `collected` into the open digest of their key, and when its window
 * ends the digest is claimed and delivered as one message per instance, in one transaction.
 */
export class DigestService implements DigestCollector {
  readonly rules: DigestRules;
  private readonly closer: DigestCloser;

  constructor(private readonly deps: DigestServiceDeps) {
    this.rules = new DigestRules(deps);
    this.closer = new DigestCloser(deps, this.rules);
  }

  async planFor(
    source: { taskId: number } | { templateId: number },
    instanceIds: readonly number[],
    priority: number | null,
    digestKey: string | undefined,
  ): Promise<DigestPlan | null> {
    const [kind, id] =
      'taskId' in source
        ? (['task', source.taskId] as const)
        : (['template', source.templateId] as const);
    const owner = {
      taskId: kind === 'task' ? id : null,
      templateId: kind === 'template' ? id : null,
    };
    const now = this.deps.clock.now();
    const key = digestKey ?? '';
    const whole = await this.rules.get(kind, id);
    if (whole) {
      const until = collects(whole, priority) ? windowUntil(whole, now) : null;
      if (until !== null) {
        return {
          slots: [{ scope: `${kind}:${id}`, key, ...owner, instanceId: null, until }],
          instanceIds: null,
        };
      }
    }
    const slots: DigestSlot[] = [];
    for (const instanceId of new Set(instanceIds)) {
      const rule = await this.rules.get('instance', instanceId);
      const until = rule && collects(rule, priority) ? windowUntil(rule, now) : null;
      if (until !== null) {
        slots.push({ scope: `instance:${instanceId}`, key, ...owner, instanceId, until });
      }
    }
    if (slots.length === 0) return null;
    return { slots, instanceIds: new Set(slots.map((s) => s.instanceId as number)) };
  }

  /**
   * One transaction: the dedup gate first (a send inside an open window is suppressed, as
   * everywhere, and never collected), then the send stored (`collected`, or with the
   * deliveries of its instances that do not collect) and added to each of its digests.
   * Committed before the caller answers, so a collected send survives any crash after.
   */
  async collect(
    plan: DigestPlan,
    gate: DedupGate | null,
    build: (repeats: number) => AcceptInput,
  ): Promise<Collected> {
    const result = await this.deps.writeLock.run(
      async ({ sql }): Promise<Collected> => {
        const now = this.deps.clock.now();
        const wallNow = Date.now();
        let repeats = 0;
        if (gate) {
          const taken = await takeGate(sql, gate, now);
          if (!taken.opened) {
            const { send } = build(0);
            const [sendId] = await insertSends(
              sql,
              [
                {
                  ...send,
                  status: 'suppressed',
                  deliveryCount: 0,
                  suppressedBy: taken.firstSendId,
                },
              ],
              wallNow,
            );
            await countSuppressed(sql, taken.firstSendId);
            return { suppressed: true, sendId, firstSendId: taken.firstSendId };
          }
          repeats = taken.repeats;
        }
        const input = build(repeats);
        let sendId: number;
        let accepted: Accepted | null = null;
        if (input.deliveries.length === 0) {
          [sendId] = await insertSends(
            sql,
            [{ ...input.send, status: 'collected', deliveryCount: 0 }],
            wallNow,
          );
        } else {
          // The other instances' deliveries, queued as an accept queues them (no claim: no lease).
          const [stored] = await acceptSends(sql, [input], {
            now,
            wallNow,
            leaseUntil: now,
            lease: '',
          });
          sendId = stored.sendId;
          accepted = { sendId, deliveryIds: stored.deliveryIds, stored: stored.stored };
        }
        if (gate) await setFirstSend(sql, gate, sendId);
        let until = Number.POSITIVE_INFINITY;
        for (const slot of plan.slots) {
          const joined = await joinDigest(sql, slot, sendId, now, wallNow);
          until = Math.min(until, joined.until);
        }
        return { suppressed: false, sendId, until, accepted };
      },
      { repeatable: true },
    );
    if (result.suppressed) {
      this.deps.events.emit('send', { id: result.sendId, status: 'suppressed' });
      return result;
    }
    this.deps.events.emit('send', {
      id: result.sendId,
      status: result.accepted ? 'pending' : 'collected',
    });
    if (result.accepted) this.deps.dispatcher.wake();
    // A new digest may close before the timer's next look.
    this.wake();
    return result;
  }

  // ---- closing (digest-closer.ts) -----------------------------------------------------

  /** Closes what came due while Herald was closed, then keeps time. */
  start(): Promise<void> {
    return this.closer.start();
  }

  stop(): Promise<void> {
    return this.closer.stop();
  }

  /** A digest opened or time may have passed: look now. */
  wake(): void {
    this.closer.wake();
  }

  /** Closes every digest due by the clock's now (tests that move a manual clock call it). */
  tick(): Promise<number> {
    return this.closer.tick();
  }
}
