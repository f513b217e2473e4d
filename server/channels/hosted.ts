import { z } from 'zod';

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
        channelId: message.channelId,
        deliveryId: message.deliveryId,
        title: message.title,
        content: message.content,
        format: message.contentType,
        url: message.url,
        priority: message.priority,
      });
      return { reply: `stored as hosted message ${stored.id}` };
    },
  });
}
