import { defineStore } from 'pinia';
import { ref } from 'vue';

import type { Settings, SettingsPatch } from '@contract';

import { settingsApi } from '../api/settings-api';

/** Server settings (task_id on V1, retry policy) and the about facts. */
export const useSettingsStore = defineStore('settings', () => {
  const settings = ref<Settings | null>(null);

  async function load(): Promise<Settings> {
    settings.value = await settingsApi.get();
    return settings.value;
  }

  async function update(patch: SettingsPatch): Promise<Settings> {
    settings.value = await settingsApi.update(patch);
    return settings.value;
  }

  return { settings, load, update };
});
