import type { PushFilter, consoleRoutes } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.push;

/** Web Push: the signed-in person's own devices (docs/reader.md). */
export const pushApi = {
  /** Herald's VAPID public key: PushManager.subscribe's applicationServerKey. */
  key: () => call<Routes['key']>('GET', '/push/key'),
  list: () => call<Routes['list']>('GET', '/push/subscriptions'),
  create: (body: {
    endpoint: string;
    keys: { p256dh: string; auth: string };
    deviceName: string;
    filter: PushFilter;
  }) => call<Routes['create']>('POST', '/push/subscriptions', { body }),
  remove: (id: number) => call<Routes['remove']>('DELETE', `/push/subscriptions/${id}`),
};
