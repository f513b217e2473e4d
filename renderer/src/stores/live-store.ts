import { defineStore } from 'pinia';
import { computed, ref } from 'vue';

import type { MessageEvent } from '@contract';

import { subscribeConsoleEvents, type StreamState } from '../api/events';
import { useMessagesStore } from './messages-store';

/**
 * The console event stream, opened once by the layout (`connect()`): counters it bumps, so
 * pages that show sends, deliveries and schedules can refresh when something changes without
 * each opening its own stream, the stream's connection state for the layout's indicator, and
 * new, read and deleted hosted messages handed to the messages store.
 */
export const useLiveStore = defineStore('live', () => {
  const sendVersion = ref(0);
  const deliveryVersion = ref(0);
  /** Bumped when a schedule changed or ran: the Schedules page reads its list again. */
  const scheduleVersion = ref(0);
  const connection = ref<StreamState>('connecting');
  const connected = computed(() => connection.value === 'open');
  /** The last delivery status change, for open detail views. */
  const lastDelivery = ref<{ id: number; sendId: number; status: string } | null>(null);

  function onSend(): void {
    sendVersion.value += 1;
  }

  function onSchedule(): void {
    scheduleVersion.value += 1;
  }

  function onDelivery(event: { id: number; sendId: number; status: string }): void {
    lastDelivery.value = event;
    deliveryVersion.value += 1;
  }

  /** Answers true when the stream is back after a drop: events may have been missed meanwhile. */
  function onConnection(state: StreamState): boolean {
    const reconnected = state === 'open' && connection.value === 'reconnecting';
    connection.value = state;
    // Pages that follow sends or schedules refresh as if one had arrived, catching up on what
    // was missed.
    if (reconnected) {
      sendVersion.value += 1;
      scheduleVersion.value += 1;
    }
    return reconnected;
  }

  /**
   * Opens the stream and routes its events: sends, deliveries and schedules to the counters
   * above, hosted messages to the messages store and then to `onMessage`. Back after a drop,
   * the unread count and a showing reader refresh, since messages may have arrived meanwhile.
   * Returns the function that closes the stream.
   */
  function connect(onMessage?: (event: MessageEvent) => void): () => void {
    const messages = useMessagesStore();
    return subscribeConsoleEvents({
      message: (event) => {
        void messages.onNewMessage(event);
        onMessage?.(event);
      },
      read: (event) => void messages.onRead(event),
      messageDeleted: (event) => void messages.onMessageDeleted(event).catch(() => undefined),
      messagesPruned: () => void messages.onMessagesPruned().catch(() => undefined),
      send: () => onSend(),
      schedule: () => onSchedule(),
      delivery: (event) => onDelivery(event),
      state: (state) => {
        if (!onConnection(state)) return;
        messages.refreshUnread().catch(() => undefined);
        if (messages.loaded) void messages.load();
      },
    });
  }

  return {
    sendVersion,
    deliveryVersion,
    scheduleVersion,
    connection,
    connected,
    lastDelivery,
    onSend,
    onSchedule,
    onDelivery,
    onConnection,
    connect,
  };
});
