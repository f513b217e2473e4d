import { insertHostedMessages, type NewHostedMessage } from '../db/hosted-messages';
import type { BatchKind, Writer } from '../db/writer';
import type { HeraldEvents } from '../events';
import { errorMessage } from '../lib/errors';
import { createLogger } from '../lib/logger';
import type { AdapterRuntime, HostedMessageInput } from './channel-adapter';

const log = createLogger('hosted');

interface Stored {
  id: number;
  fresh: boolean;
  createdAt: string;
}

/**
 * Where the hosted channel stores what it delivers: messages delivered together are written
 * in one statement of the writer's cycle, and the reader is told once they are committed.
 */
export function hostedMessageStore(
  writer: Writer,
  events: HeraldEvents,
): AdapterRuntime['storeHostedMessage'] {
  const kind: BatchKind<NewHostedMessage, Stored> = {
    name: 'hosted message',
    async run({ sql }, messages) {
      const wallNow = Date.now();
      const createdAt = new Date(wallNow).toISOString();
      return (await insertHostedMessages(sql, [...messages], wallNow)).map((m) => ({
        ...m,
        createdAt,
      }));
    },
  };
  return async (input: HostedMessageInput) => {
    const message: NewHostedMessage = {
      ...input,
      // Negative ids mark console test sends: they have no delivery row.
      deliveryId: input.deliveryId > 0 ? input.deliveryId : null,
    };
    const stored = await writer.submit(kind, message);
    if (!stored.fresh) return { id: stored.id };
    announceHostedMessage(events, {
      id: stored.id,
      title: input.title,
      content: input.content,
      format: input.format,
      url: input.url,
      priority: input.priority ?? null,
      createdAt: stored.createdAt,
    });
    return { id: stored.id };
  };
}

/** Tells the reader, the tray and notifications of a hosted message that is committed. */
export function announceHostedMessage(
  events: HeraldEvents,
  message: {
    id: number;
    title: string;
    content: string;
    format: HostedMessageInput['format'];
    url: string | null;
    priority: number | null;
    createdAt: string;
  },
): void {
  // The message is stored: a listener that throws (tray, notifications) must not turn this
  // delivery into a failure and a duplicate on retry.
  try {
    events.emit('message', message);
  } catch (err) {
    log.error(`a listener of new hosted messages failed: ${errorMessage(err)}`);
  }
}
