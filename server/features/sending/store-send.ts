import { LIMITS } from '../../../contract';
import type { HeraldParts } from '../../parts';
import type { DedupGate } from '../../queue/delivery-state';
import { acceptInputOf, acceptedDeliveries, type SendToStore } from './send-rows';
import type { AcceptedDelivery } from './v1-answer';
import type { DigestCollector } from '../digests/digest-service';

/** What storing a send uses of the composed parts, and the digests that may collect it. */
export type StoreSendDeps = Pick<HeraldParts, 'deliveries' | 'dispatcher'> & {
  digests?: DigestCollector;
};

export interface StoredSend {
  send: { id: number };
  deliveries: AcceptedDelivery[];
  /** Set when an open dedup window kept the send from delivery: the window's first send. */
  suppressedBy: number | null;
  /**
   * Set when a digest collected the send, or some of its instances' deliveries: when the first
   * of its digests' windows closes (epoch ms).
   */
  collectedUntil?: number;
}

/**
 * The parts of a send that depend on how many sends its dedup key suppressed before it: a V2
 * template fills its `repeats` placeholder with the count.
 */
export type RenderWithRepeats = (repeats: number) => Pick<SendToStore, 'bodies' | 'planned'>;

/**
 * Commits the send and every delivery before anyone is answered; concurrent sends share one
 * commit (see DeliveryState.accept). A send with a dedup key takes its window first, in its
 * own transaction (DeliveryState.acceptOnce).
 */
export async function storeSend(
  deps: StoreSendDeps,
  input: SendToStore,
  render?: RenderWithRepeats,
): Promise<StoredSend> {
  const paused = deps.dispatcher.paused;
  const gate = gateOf(input);
  let stored = input;
  const plan = input.digest;
  if (plan && deps.digests) {
    // Dedup first, in the same transaction: a suppressed send is never collected. The
    // instances that collect apart get no delivery; the others' are stored with the send
    // (hosted ones through the queue: this transaction stores no message).
    const kept = (s: SendToStore): SendToStore => ({
      ...s,
      planned: plan.instanceIds
        ? s.planned.filter((p) => !plan.instanceIds!.has(p.target.instance.id))
        : [],
    });
    const collected = await deps.digests.collect(plan, gate, (repeats) => {
      stored = kept(render ? { ...input, ...render(repeats) } : input);
      return acceptInputOf(stored, true, repeats);
    });
    input.origin?.stored?.(collected.sendId);
    await input.files?.stored(collected.sendId);
    if (collected.suppressed) {
      return {
        send: { id: collected.sendId },
        deliveries: [],
        suppressedBy: collected.firstSendId,
      };
    }
    return {
      send: { id: collected.sendId },
      deliveries: collected.accepted ? acceptedDeliveries(stored.planned, collected.accepted) : [],
      suppressedBy: null,
      collectedUntil: collected.until,
    };
  }
  const outcome = gate
    ? await deps.deliveries.acceptOnce(gate, (repeats) => {
        stored = render ? { ...input, ...render(repeats) } : input;
        return acceptInputOf(stored, paused, repeats);
      })
    : {
        suppressed: false as const,
        ...(await deps.deliveries.accept(acceptInputOf(input, paused))),
      };
  input.origin?.stored?.(outcome.sendId);
  await input.files?.stored(outcome.sendId);
  if (outcome.suppressed) {
    return { send: { id: outcome.sendId }, deliveries: [], suppressedBy: outcome.firstSendId };
  }
  // A send whose deliveries were all stored with it leaves the queue nothing to claim.
  if (outcome.stored.length < outcome.deliveryIds.length) deps.dispatcher.wake();
  return {
    send: { id: outcome.sendId },
    deliveries: acceptedDeliveries(stored.planned, outcome),
    suppressedBy: null,
  };
}

/** The window a send's dedup key names: per task or template, so two sources never share one. */
function gateOf(input: SendToStore): DedupGate | null {
  if (input.dedup === null) return null;
  const scope = input.taskId !== null ? `task:${input.taskId}` : `template:${input.templateId}`;
  const seconds = input.dedup.windowSeconds ?? LIMITS.dedupWindowDefaultSeconds;
  return { scope, key: input.dedup.key, windowMs: seconds * 1000 };
}
