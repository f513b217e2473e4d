import type { HostedMessage, HostedMessageDetail, MessagePage } from '../data-types';
import { http } from './http-client';

/** Hosted messages: the reader. */
export const messagesApi = {
  list: (query: { q?: string; unread?: boolean; page?: number; pageSize?: number } = {}) =>
    http.get<MessagePage>('/messages', { ...query, unread: query.unread ? 'true' : undefined }),
  get: (id: number) => http.get<HostedMessageDetail>(`/messages/${id}`),
  setRead: (id: number, read: boolean) => http.patch<HostedMessage>(`/messages/${id}`, { read }),
  readAll: () => http.post<{ updated: number }>('/messages/read-all'),
  remove: (id: number) => http.delete(`/messages/${id}`),
  createLink: (id: number) => http.post<{ previewUrl: string }>(`/messages/${id}/link`),
  revokeLink: (id: number) => http.delete(`/messages/${id}/link`),
};
