import { defineStore } from 'pinia';

import { settingsApi } from '../api/settings-api';

/**
 * The dashboard's statistics over the last `days` days, and each channel's health (how its
 * latest deliveries went) for the channels page.
 */
export const useStatsStore = defineStore('stats', () => {
  const load = (days: number) => settingsApi.stats(days);
  const channelHealth = () => settingsApi.channelHealth();

  return { load, channelHealth };
});
