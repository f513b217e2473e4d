import { defineStore } from 'pinia';
import { ref } from 'vue';

import type { ChannelType, ContentType } from '@contract';

import { channelsApi } from '../api/channels-api';

/** The channel kinds the server knows, loaded once per session. */
export const useChannelTypesStore = defineStore('channelTypes', () => {
  const types = ref<ChannelType[]>([]);
  const loaded = ref(false);
  let pending: Promise<ChannelType[]> | null = null;

  /** Loads the kinds unless they are loaded already (concurrent callers share one request). */
  async function load(force = false): Promise<ChannelType[]> {
    if (loaded.value && !force) return types.value;
    pending ??= channelsApi.types().finally(() => {
      pending = null;
    });
    types.value = await pending;
    loaded.value = true;
    return types.value;
  }

  function byType(type: string): ChannelType | undefined {
    return types.value.find((t) => t.type === type);
  }

  /** The content types an instance on a channel of this kind may use. */
  function contentTypesOf(type: string): ContentType[] {
    return byType(type)?.contentTypes ?? ['text'];
  }

  return { types, loaded, load, byType, contentTypesOf };
});
