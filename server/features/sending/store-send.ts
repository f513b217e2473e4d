import type { HeraldParts } from '../../parts';
import { acceptInputOf, acceptedDeliveries, type SendToStore } from './send-rows';
import type { AcceptedDelivery } from './v1-answer';

/** What storing a send uses of the composed parts. */
export type StoreSendDeps = Pick<HeraldParts, 'deliveries' | 'dispatcher'>;

/**
 * Commits the send and every delivery before anyone is answered; concurrent sends share one
 * commit (see DeliveryState.accept).
 */
export async function storeSend(
  deps: StoreSendDeps,
  input: SendToStore,
): Promise<{ send: { id: number }; deliveries: AcceptedDelivery[] }> {
  const accepted = await deps.deliveries.accept(acceptInputOf(input, deps.dispatcher.paused));
  input.origin?.stored?.(accepted.sendId);
  // A send whose deliveries were all stored with it leaves the queue nothing to claim.
  if (accepted.stored.length < accepted.deliveryIds.length) deps.dispatcher.wake();
  return {
    send: { id: accepted.sendId },
    deliveries: acceptedDeliveries(input.planned, accepted),
  };
}
