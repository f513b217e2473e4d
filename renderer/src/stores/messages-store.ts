import { defineStore } from 'pinia';
import { ref, toRef } from 'vue';

import type { MessageDeletedEvent, MessageEvent, ReadEvent } from '@contract';

import { messagesApi } from '../api/messages-api';
import { reportUnreadChanged } from '../lib/desktop-bridge';
import { usePagedList } from '../lib/use-paged-list';

/**
 * The hosted-message reader's list (a {@link usePagedList} the store owns, so the layout's event
 * stream can refresh it), plus the unread count for the sidebar badge and live highlights.
 */
export const useMessagesStore = defineStore('messages', () => {
  const unreadCount = ref(0);
  const list = usePagedList({
    filters: { q: '', unreadOnly: false, priorityFirst: false },
    fetchPage: ({ filters, page, pageSize }) =>
      messagesApi.list({
        q: filters.q.trim() || undefined,
        unread: filters.unreadOnly,
        sort: filters.priorityFirst ? 'priority' : undefined,
        page,
        pageSize,
      }),
    onAnswer: (answer) => {
      unreadCount.value = answer.unreadCount ?? unreadCount.value;
    },
  });
  const { items, load, loaded } = list;
  /** Ids that arrived through the event stream since the page opened, highlighted in the list. */
  const freshIds = ref<number[]>([]);

  /** Reads only the unread count (for the sidebar badge) without touching the list. */
  async function refreshUnread(): Promise<void> {
    const data = await messagesApi.list({ unread: true, page: 1, pageSize: 1 });
    unreadCount.value = data.unreadCount ?? data.total;
  }

  /** A new hosted message arrived: count it and refresh the list if it is showing. */
  async function onNewMessage(event: MessageEvent): Promise<void> {
    freshIds.value = [...freshIds.value, event.id];
    unreadCount.value += 1;
    if (loaded.value) await load();
  }

  /**
   * The person read or unread something, here or in another of their windows (read state is
   * per person; the stream sends only theirs): their count, and the flags the list shows.
   */
  async function onRead(event: ReadEvent): Promise<void> {
    unreadCount.value = event.unreadCount;
    for (const m of items.value) if (event.id === null || m.id === event.id) m.read = event.read;
    if (list.filters.unreadOnly && loaded.value) await load();
  }

  /**
   * Someone (maybe this person, in this window) deleted a message: the count again, since it
   * may have been unread here, and the list if it shows the message.
   */
  async function onMessageDeleted(event: MessageDeletedEvent): Promise<void> {
    freshIds.value = freshIds.value.filter((id) => id !== event.id);
    await refreshUnread();
    if (loaded.value && items.value.some((m) => m.id === event.id)) await load();
  }

  /** Retention deleted old messages: which ones is not said, so the count and list are read again. */
  async function onMessagesPruned(): Promise<void> {
    await refreshUnread();
    if (loaded.value) await load();
  }

  function applyRead(id: number, read: boolean): void {
    const item = items.value.find((m) => m.id === id);
    if (item && item.read !== read) {
      item.read = read;
      unreadCount.value = Math.max(0, unreadCount.value + (read ? -1 : 1));
    }
  }

  /** A message shared or revoked in the drawer: its row's shared mark follows at once. */
  function applyLink(id: number, previewUrl: string | null): void {
    const item = items.value.find((m) => m.id === id);
    if (item) item.previewUrl = previewUrl;
  }

  async function setRead(id: number, read: boolean): Promise<void> {
    const updated = await messagesApi.setRead(id, read);
    applyRead(id, updated.read);
    reportUnreadChanged();
    if (list.filters.unreadOnly && read) await load();
  }

  async function readAll(): Promise<number> {
    const { updated } = await messagesApi.readAll();
    for (const m of items.value) m.read = true;
    unreadCount.value = 0;
    reportUnreadChanged();
    if (list.filters.unreadOnly) await load();
    return updated;
  }

  /** One message with its content, as the detail panel shows it. */
  function detail(id: number) {
    return messagesApi.get(id);
  }

  async function remove(id: number): Promise<void> {
    await messagesApi.remove(id);
    reportUnreadChanged();
    await load();
  }

  return {
    items,
    total: list.total,
    totalIsCapped: list.totalIsCapped,
    page: list.page,
    pageSize: list.pageSize,
    // The filters stay top-level fields of the store (store.q, store.unreadOnly) for v-model.
    q: toRef(list.filters, 'q'),
    unreadOnly: toRef(list.filters, 'unreadOnly'),
    /** Priority 5, then 4, then the rest (each newest first) instead of newest first. */
    priorityFirst: toRef(list.filters, 'priorityFirst'),
    filtered: list.filtered,
    unreadCount,
    loading: list.loading,
    error: list.error,
    loaded,
    freshIds,
    load,
    setPage: list.setPage,
    setPageSize: list.setPageSize,
    detail,
    refreshUnread,
    onNewMessage,
    onRead,
    onMessageDeleted,
    onMessagesPruned,
    applyRead,
    applyLink,
    setRead,
    readAll,
    remove,
  };
});
