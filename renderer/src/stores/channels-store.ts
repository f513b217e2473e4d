import { defineStore } from 'pinia';
import { ref } from 'vue';

import { channelsApi } from '../api/channels-api';
import type { Channel, ChannelConfig, ChannelInput, Page } from '../api/types';

/** The channel list, shared by the channels page and the instance editors. */
export const useChannelsStore = defineStore('channels', () => {
  const items = ref<Channel[]>([]);
  const loading = ref(false);
  const loaded = ref(false);

  async function load(): Promise<Channel[]> {
    loading.value = true;
    try {
      const data: Page<Channel> | Channel[] = await channelsApi.list();
      // The API answers a list envelope; accept a bare array too.
      items.value = Array.isArray(data) ? data : data.items;
      loaded.value = true;
      return items.value;
    } finally {
      loading.value = false;
    }
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

  return { items, loading, loaded, load, ensureLoaded, create, update, remove, byId };
});
