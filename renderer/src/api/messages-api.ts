import type { MessageSort, consoleRoutes } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.messages;

/** Hosted messages: the reader. */
export const messagesApi = {
  list: (
    query: {
      q?: string;
      unread?: boolean;
      sort?: MessageSort;
      page?: number;
      pageSize?: number;
    } = {},
  ) =>
    call<Routes['list']>('GET', '/messages', {
      query: { ...query, unread: query.unread ? 'true' : undefined },
    }),
  get: (id: number) => call<Routes['get']>('GET', `/messages/${id}`),
  setRead: (id: number, read: boolean) =>
    call<Routes['setRead']>('PATCH', `/messages/${id}`, { body: { read } }),
  readAll: () => call<Routes['readAll']>('POST', '/messages/read-all'),
  remove: (id: number) => call<Routes['remove']>('DELETE', `/messages/${id}`),
  createLink: (id: number) => call<Routes['createLink']>('POST', `/messages/${id}/link`),
  revokeLink: (id: number) => call<Routes['revokeLink']>('DELETE', `/messages/${id}/link`),
};
