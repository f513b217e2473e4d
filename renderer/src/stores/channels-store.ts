import { defineStore } from 'pinia';
import { ref } from 'vue';

import type {
  Channel,
  ChannelCreate,
  ChannelTest,
  ChannelTestUnsaved,
  ChannelUpdate,
} from '@contract';

import { channelsApi } from '../api/channels-api';

/**
 * Channels: the list (shared by the channels page and the instance editors, which show it
 * through useLoad), its changes, and test sends.
 */
export const useChannelsStore = defineStore('channels', () => {
  const items = ref<Channel[]>([]);
  const loaded = ref(false);

  async function load(): Promise<Channel[]> {
    items.value = (await channelsApi.list()).items;
    loaded.value = true;
    return items.value;
  }

  async function ensureLoaded(): Promise<Channel[]> {
    return loaded.value ? items.value : load();
  }

  async function create(input: ChannelCreate): Promise<Channel> {
    const channel = await channelsApi.create(input);
    items.value = [...items.value, channel];
    return channel;
  }

  async function update(id: number, input: ChannelUpdate): Promise<Channel> {
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

  /**
   * Sends a real test message through a channel (or an unsaved edit of it, with `config`);
   * resolves with what the platform answered.
   */
  function test(id: number, input: ChannelTest) {
    return channelsApi.test(id, input);
  }

  /** The same through a channel not saved yet: its kind and config as the form holds them. */
  function testUnsaved(input: ChannelTestUnsaved) {
    return channelsApi.testUnsaved(input);
  }

  return { items, loaded, load, ensureLoaded, create, update, remove, byId, test, testUnsaved };
});
