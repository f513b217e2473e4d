import { defineStore } from 'pinia';

import { maintenanceApi } from '../api/maintenance-api';

/** The database panel of the Settings page: its size and rows, and pruning old history now. */
export const useMaintenanceStore = defineStore('maintenance', () => {
  const info = () => maintenanceApi.info();
  const prune = () => maintenanceApi.prune();

  return { info, prune };
});
