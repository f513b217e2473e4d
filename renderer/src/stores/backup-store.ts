import { defineStore } from 'pinia';

import { backupApi, backupDownloadUrl } from '../api/backup-api';

/** Settings → Backup: the schedule, and the download link the browser follows. */
export const useBackupStore = defineStore('backup', () => ({
  schedule: backupApi.schedule,
  updateSchedule: backupApi.updateSchedule,
  downloadUrl: backupDownloadUrl,
}));
