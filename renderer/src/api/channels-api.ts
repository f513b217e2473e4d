import type {
  ChannelCreate,
  ChannelTest,
  ChannelTestUnsaved,
  ChannelUpdate,
  consoleRoutes,
  QueryOf,
} from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.channels;

/** Channel kinds and channels. */
export const channelsApi = {
  types: () => call<Routes['types']>('GET', '/channel-types'),
  list: (query: QueryOf<Routes['list']> = {}) =>
    call<Routes['list']>('GET', '/channels', { query }),
  get: (id: number) => call<Routes['get']>('GET', `/channels/${id}`),
  create: (input: ChannelCreate) => call<Routes['create']>('POST', '/channels', { body: input }),
  update: (id: number, input: ChannelUpdate) =>
    call<Routes['update']>('PUT', `/channels/${id}`, { body: input }),
  remove: (id: number) => call<Routes['remove']>('DELETE', `/channels/${id}`),
  test: (id: number, input: ChannelTest = {}) =>
    call<Routes['test']>('POST', `/channels/${id}/test`, { body: input }),
  testUnsaved: (input: ChannelTestUnsaved) =>
    call<Routes['testUnsaved']>('POST', '/channels/test', { body: input }),
};
