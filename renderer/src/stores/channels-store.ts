import { defineStore } from 'pinia';
import { ref } from 'vue';

import { channelsApi } from '../api/channels-api';
import type { Channel, ChannelConfig, ChannelInput, Page } from '../data-types';

/**
 * Channels: the list (shared by the channels page and the instance editors, which show it
 * through useLoad), its changes, and test sends.
 */
export const useChannelsStore = defineStore('channels', () => {
  const items = ref<Channel[]>([]);
  const loaded = ref(false);

  async function load(): Promise<Channel[]> {
    const data: Page<Channel> | Channel[] = await channelsApi.list();
    // The API answers a list envelope; accept a bare array too.
    items.value = Array.isArray(data) ? data : data.items;
    loaded.value = true;
    return items.value;
  }

  async function ensureLoaded(): Promise<Channel[]> {
    return loaded.value ? items.value : load();
  }

  async function create(input: ChannelInput): Promise<Channel> {
    const channel = await channelsApi.create(input);
    items.value = [...items.value, channel];
    return channel;
  }

  async function update(
    id: number,
    input: { name?: string; description?: string; config?: ChannelConfig },
  ): Promise<Channel> {
    const channel = await channelsApi.update(id, input);
    items.value = items.value.map((c) => (c.id === id ? channel : c));
    return channel;
  }

  async function remove(id: number): Promise<void> {
    await channelsApi.remove(id);
    items.value = items.value.filter((c) => c.id !== id);
  }

  function byId(id: number): Channel | undefined {
    return items.value.find((c) => c.id === id);
  }

  /** Sends a real test message through a channel; resolves with what the platform answered. */
  function test(id: number, input: { title?: string; content?: string; recipient?: string }) {
    return channelsApi.test(id, input);
  }

  return { items, loaded, load, ensureLoaded, create, update, remove, byId, test };
});
