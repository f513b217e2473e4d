import { defineStore } from 'pinia';

import { settingsApi } from '../api/settings-api';

/**
 * The dashboard's statistics over the last `days` days and its notices, and each channel's
 * health (how its latest deliveries went) for the channels page.
 */
export const useStatsStore = defineStore('stats', () => {
  const load = (days: number) => settingsApi.stats(days);
  const channelHealth = () => settingsApi.channelHealth();
  /** Setup problems the server noticed (a reverse proxy without a public address). */
  const notices = () => settingsApi.notices();

  return { load, channelHealth, notices };
});
