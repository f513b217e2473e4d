import { defineStore } from 'pinia';
import { ref } from 'vue';

import { messagesApi } from '../api/messages-api';
import type { HostedMessage, MessageEvent } from '../api/types';

/** The hosted-message reader's list, filters and unread count; kept live by the event stream. */
export const useMessagesStore = defineStore('messages', () => {
  const items = ref<HostedMessage[]>([]);
  const total = ref(0);
  const totalIsCapped = ref(false);
  const page = ref(1);
  const pageSize = ref(20);
  const q = ref('');
  const unreadOnly = ref(false);
  const unreadCount = ref(0);
  const loading = ref(false);
  const error = ref<string | null>(null);
  const loaded = ref(false);
  /** Ids that arrived through the event stream since the page opened, highlighted in the list. */
  const freshIds = ref<number[]>([]);

  let requestSeq = 0;

  async function load(): Promise<void> {
    const seq = ++requestSeq;
    loading.value = true;
    error.value = null;
    try {
      const data = await messagesApi.list({
        q: q.value.trim() || undefined,
        unread: unreadOnly.value,
        page: page.value,
        pageSize: pageSize.value,
      });
      // A slower, older request must not overwrite a newer answer.
      if (seq !== requestSeq) return;
      items.value = data.items;
      total.value = data.total;
      totalIsCapped.value = data.totalIsCapped ?? false;
      unreadCount.value = data.unreadCount ?? unreadCount.value;
      loaded.value = true;
    } catch (err) {
      if (seq === requestSeq) error.value = (err as Error).message;
      throw err;
    } finally {
      if (seq === requestSeq) loading.value = false;
    }
  }

  /** Reads only the unread count (for the sidebar badge) without touching the list. */
  async function refreshUnread(): Promise<void> {
    const data = await messagesApi.list({ unread: true, page: 1, pageSize: 1 });
    unreadCount.value = data.unreadCount ?? data.total;
  }

  /** A new hosted message arrived: count it and refresh the list if it is showing. */
  async function onNewMessage(event: MessageEvent): Promise<void> {
    freshIds.value = [...freshIds.value, event.id];
    unreadCount.value += 1;
    if (loaded.value) await load().catch(() => undefined);
  }

  function applyRead(id: number, read: boolean): void {
    const item = items.value.find((m) => m.id === id);
    if (item && item.read !== read) {
      item.read = read;
      unreadCount.value = Math.max(0, unreadCount.value + (read ? -1 : 1));
    }
  }

  async function setRead(id: number, read: boolean): Promise<void> {
    const updated = await messagesApi.setRead(id, read);
    applyRead(id, updated.read);
    if (unreadOnly.value && read) await load();
  }

  async function readAll(): Promise<number> {
    const { updated } = await messagesApi.readAll();
    for (const m of items.value) m.read = true;
    unreadCount.value = 0;
    if (unreadOnly.value) await load();
    return updated;
  }

  async function remove(id: number): Promise<void> {
    await messagesApi.remove(id);
    await load();
  }

  return {
    items,
    total,
    totalIsCapped,
    page,
    pageSize,
    q,
    unreadOnly,
    unreadCount,
    loading,
    error,
    loaded,
    freshIds,
    load,
    refreshUnread,
    onNewMessage,
    applyRead,
    setRead,
    readAll,
    remove,
  };
});
