import { hostedConfig } from '../../contract/channel-kinds/hosted';
import { hostedMessageOf, hostedMessageReply } from '../db/hosted-messages';
import { configOf, defineAdapter } from './channel-adapter';

/** Hosted messages: stored on Herald and read in the console. Nothing leaves the machine. */
export function createHostedAdapter() {
  return defineAdapter({
    type: 'hosted',
    label: 'Hosted message',
    ...configOf(hostedConfig),
    contentTypes: ['text', 'html', 'markdown'],
    supportsMentions: false,
    supportsDynamicRecipients: false,
    fixedRecipient: 'none',
    async send(_config, message, runtime) {
      const stored = await runtime.storeHostedMessage({
        ...hostedMessageOf(message, message.deliveryId),
        // Announced with the message (notifications); the stored row takes its delivery's.
        priority: message.priority,
        // The same holds for the files: the row lists its delivery's, which are these.
        ...(message.attachments?.length && { attachments: message.attachments }),
      });
      return { reply: hostedMessageReply(stored.id) };
    },
  });
}
