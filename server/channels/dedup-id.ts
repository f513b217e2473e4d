import { createHash } from 'node:crypto';

import type { OutboundMessage } from './channel-adapter';

/**
 * An idempotency key for platforms that drop repeats of the same id (DingTalk `msgUuid`,
 * WeChat `client_msg_id`), so a retry after a timeout is not delivered twice.
 *
 * It is stable across retries of one delivery. The content hash keeps two different messages
 * apart when delivery ids repeat (a second Herald, or a fresh data dir, posting to the same
 * robot), which would otherwise make the platform swallow the newer message as a duplicate.
 */
export function deliveryDedupId(
  message: Pick<OutboundMessage, 'deliveryId' | 'title' | 'content'>,
): string {
  const digest = createHash('sha256')
    .update(`${message.title}\u0000${message.content}`)
    .digest('hex')
    .slice(0, 12);
  return `herald-${message.deliveryId}-${digest}`;
}
