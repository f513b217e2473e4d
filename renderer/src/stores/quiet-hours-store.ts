import { defineStore } from 'pinia';

import { quietHoursApi } from '../api/quiet-hours-api';

/**
 * Quiet hours (issue 46 §1): the rules of an instance, a channel or the signed-in person, which
 * each editor loads and saves for its own owner, and the "would a message sent now wait?" preview.
 */
export const useQuietHoursStore = defineStore('quietHours', () => ({
  list: quietHoursApi.list,
  create: quietHoursApi.create,
  update: quietHoursApi.update,
  remove: quietHoursApi.remove,
  preview: quietHoursApi.preview,
}));
