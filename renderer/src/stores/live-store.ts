import { defineStore } from 'pinia';
import { computed, ref } from 'vue';

import type { StreamState } from '../api/events';

/**
 * Counters bumped by the console event stream, so pages that show sends and deliveries can
 * refresh when something changes without each opening its own stream, and the stream's
 * connection state for the layout's indicator.
 */
export const useLiveStore = defineStore('live', () => {
  const sendVersion = ref(0);
  const deliveryVersion = ref(0);
  const connection = ref<StreamState>('connecting');
  const connected = computed(() => connection.value === 'open');
  /** The last delivery status change, for open detail views. */
  const lastDelivery = ref<{ id: number; sendId: number; status: string } | null>(null);

  function onSend(): void {
    sendVersion.value += 1;
  }

  function onDelivery(event: { id: number; sendId: number; status: string }): void {
    lastDelivery.value = event;
    deliveryVersion.value += 1;
  }

  /** Answers true when the stream is back after a drop: events may have been missed meanwhile. */
  function onConnection(state: StreamState): boolean {
    const reconnected = state === 'open' && connection.value === 'reconnecting';
    connection.value = state;
    // Pages that follow sends refresh as if one had arrived, catching up on what was missed.
    if (reconnected) sendVersion.value += 1;
    return reconnected;
  }

  return {
    sendVersion,
    deliveryVersion,
    connection,
    connected,
    lastDelivery,
    onSend,
    onDelivery,
    onConnection,
  };
});
