import { z } from 'zod';

import { hostedMessageOf, hostedMessageReply } from '../db/hosted-messages';
import { defineAdapter } from './channel-adapter';

/** Hosted messages: stored on Herald and read in the console. Nothing leaves the machine. */
export function createHostedAdapter() {
  return defineAdapter({
    type: 'hosted',
    label: 'Hosted message',
    configSchema: z.object({}).strict(),
    secretFields: [],
    destinationFields: [],
    contentTypes: ['text', 'html', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    async send(_config, message, runtime) {
      const stored = await runtime.storeHostedMessage({
        ...hostedMessageOf(message, message.deliveryId),
        // Announced with the message (notifications); the stored row takes its delivery's.
        priority: message.priority,
      });
      return { reply: hostedMessageReply(stored.id) };
    },
  });
}
