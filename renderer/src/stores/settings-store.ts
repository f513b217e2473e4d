import { defineStore } from 'pinia';
import { ref } from 'vue';

import { settingsApi } from '../api/settings-api';
import type { Settings, SettingsPatch } from '../api/types';

/** Server settings (task_id on V1, retry policy) and the about facts. */
export const useSettingsStore = defineStore('settings', () => {
  const settings = ref<Settings | null>(null);
  const loading = ref(false);

  async function load(): Promise<Settings> {
    loading.value = true;
    try {
      settings.value = await settingsApi.get();
      return settings.value;
    } finally {
      loading.value = false;
    }
  }

  async function update(patch: SettingsPatch): Promise<Settings> {
    settings.value = await settingsApi.update(patch);
    return settings.value;
  }

  return { settings, loading, load, update };
});
