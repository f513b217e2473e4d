import { defineStore } from 'pinia';
import { ref } from 'vue';

/**
 * Counters bumped by the console event stream, so pages that show sends and deliveries can
 * refresh when something changes without each opening its own stream.
 */
export const useLiveStore = defineStore('live', () => {
  const sendVersion = ref(0);
  const deliveryVersion = ref(0);
  const connected = ref(false);
  /** The last delivery status change, for open detail views. */
  const lastDelivery = ref<{ id: number; sendId: number; status: string } | null>(null);

  function onSend(): void {
    sendVersion.value += 1;
  }

  function onDelivery(event: { id: number; sendId: number; status: string }): void {
    lastDelivery.value = event;
    deliveryVersion.value += 1;
  }

  return { sendVersion, deliveryVersion, connected, lastDelivery, onSend, onDelivery };
});
