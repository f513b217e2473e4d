import type { consoleRoutes, SettingsPatch } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes;

/** Settings and dashboard statistics. */
export const settingsApi = {
  get: () => call<Routes['settings']['get']>('GET', '/settings'),
  update: (patch: SettingsPatch) =>
    call<Routes['settings']['update']>('PUT', '/settings', { body: patch }),
  stats: (days = 30) => call<Routes['stats']['get']>('GET', '/stats', { query: { days } }),
  channelHealth: () => call<Routes['stats']['channelHealth']>('GET', '/stats/channel-health'),
  notices: () => call<Routes['stats']['notices']>('GET', '/stats/notices'),
};
