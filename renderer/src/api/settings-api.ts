import { http } from './http-client';
import type { Settings, SettingsPatch, Stats } from './types';

/** Settings and dashboard statistics. */
export const settingsApi = {
  get: () => http.get<Settings>('/settings'),
  update: (patch: SettingsPatch) => http.put<Settings>('/settings', patch),
  stats: (days = 30) => http.get<Stats>('/stats', { days }),
};
