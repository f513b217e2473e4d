import { defineStore } from 'pinia';

import { settingsApi } from '../api/settings-api';

/** The dashboard's statistics over the last `days` days. */
export const useStatsStore = defineStore('stats', () => {
  const load = (days: number) => settingsApi.stats(days);

  return { load };
});
