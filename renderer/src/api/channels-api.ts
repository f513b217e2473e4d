import type {
  Channel,
  ChannelConfig,
  ChannelInput,
  ChannelTestResult,
  ChannelType,
  Page,
} from '../data-types';
import { http } from './http-client';

/** Channel kinds and channels. */
export const channelsApi = {
  types: () => http.get<ChannelType[]>('/channel-types'),
  list: (query: { type?: string; q?: string } = {}) => http.get<Page<Channel>>('/channels', query),
  get: (id: number) => http.get<Channel>(`/channels/${id}`),
  create: (input: ChannelInput) => http.post<Channel>('/channels', input),
  update: (id: number, input: { name?: string; description?: string; config?: ChannelConfig }) =>
    http.put<Channel>(`/channels/${id}`, input),
  remove: (id: number) => http.delete(`/channels/${id}`),
  test: (id: number, input: { title?: string; content?: string; recipient?: string } = {}) =>
    http.post<ChannelTestResult>(`/channels/${id}/test`, input),
};
