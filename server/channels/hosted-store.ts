import {
  hostedMessageEvent,
  insertHostedMessages,
  newHostedMessage,
  type NewHostedMessage,
} from '../db/hosted-messages';
import type { BatchKind, Writer } from '../db/writer';
import type { HeraldEvents, HostedMessageEvent } from '../events';
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
    const stored = await writer.submit(kind, newHostedMessage(input));
    if (!stored.fresh) return { id: stored.id };
    announceHostedMessage(
      events,
      hostedMessageEvent(input, stored.id, input.priority, stored.createdAt),
    );
    return { id: stored.id };
  };
}

/** Tells the reader, the tray and notifications of a hosted message that is committed. */
export function announceHostedMessage(events: HeraldEvents, message: HostedMessageEvent): void {
  // The message is stored: a listener that throws (tray, notifications) must not turn this
  // delivery into a failure and a duplicate on retry.
  try {
    events.emit('message', message);
  } catch (err) {
    log.error(`a listener of new hosted messages failed: ${errorMessage(err)}`);
  }
}
