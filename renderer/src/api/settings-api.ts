import type { Settings, SettingsPatch, Stats } from '../data-types';
import { http } from './http-client';

/** Settings and dashboard statistics. */
export const settingsApi = {
  get: () => http.get<Settings>('/settings'),
  update: (patch: SettingsPatch) => http.put<Settings>('/settings', patch),
  stats: (days = 30) => http.get<Stats>('/stats', { days }),
};
