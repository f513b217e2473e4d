import type { HostedMessage, HostedMessageDetail } from '@contract';

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

/**
 * One message as the reader's drawer reads it (`GET /messages/:id`): read, its content as the
 * server's sanitised HTML, no files and no remote images unless `fields` say otherwise.
 */
export const hostedMessageDetail = (
  id: number,
  fields: Partial<HostedMessageDetail> = {},
): HostedMessageDetail => ({
  ...hostedMessage(id, { read: true }),
  safeHtml: '<p>body</p>',
  attachments: [],
  showRemoteImages: false,
  remoteImages: null,
  ...fields,
});
