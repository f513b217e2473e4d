import { defineStore } from 'pinia';

import type { PushFilter, PushSubscriptionInfo } from '@contract';

import { pushApi } from '../api/push-api';
import { tasksApi } from '../api/tasks-api';
import { templatesApi } from '../api/templates-api';
import { removeDevice, subscribeThisDevice } from '../lib/web-push';

/** A task or template a push filter may name. */
export interface PushSource {
  id: number;
  name: string;
}

/**
 * Web Push devices of the signed-in person (docs/reader.md): the reader's subscribe dialog and
 * Account → Notified devices. Each keeps what it loaded; nothing here is shared state.
 */
export const usePushStore = defineStore('push', () => ({
  devices: () => pushApi.list(),
  /** Asks for permission, subscribes this browser and tells Herald (lib/web-push.ts). */
  subscribe: (deviceName: string, filter: PushFilter) => subscribeThisDevice(deviceName, filter),
  remove: (device: PushSubscriptionInfo) => removeDevice(device),
  /** The first 100 tasks and templates, for a filter; only editors and administrators may list them. */
  async sources(): Promise<{ tasks: PushSource[]; templates: PushSource[] }> {
    const [tasks, templates] = await Promise.all([
      tasksApi.list({ pageSize: 100 }),
      templatesApi.list({ pageSize: 100 }),
    ]);
    const pick = ({ id, name }: PushSource) => ({ id, name });
    return { tasks: tasks.items.map(pick), templates: templates.items.map(pick) };
  },
}));
