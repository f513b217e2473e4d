import type { HostedMessage } from '@contract';

/** A hosted message as the console's list answers it: message `id`, text, unread, no link. */
export const hostedMessage = (id: number, fields: Partial<HostedMessage> = {}): HostedMessage => ({
  id,
  channelId: 1,
  title: `Message ${id}`,
  content: 'body',
  excerpt: 'body',
  format: 'text',
  url: null,
  priority: null,
  previewUrl: null,
  read: false,
  createdAt: '2026-12-01T08:00:00.000Z',
  updatedAt: '2026-12-01T08:00:00.000Z',
  ...fields,
});
