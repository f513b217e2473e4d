import type { HookPresetName } from '../../../contract';
import { alertmanagerPreset } from './alertmanager';
import { genericPreset } from './generic';
import { githubPreset } from './github';
import type { HookPreset } from './hook-preset';
import { grafanaPreset } from './grafana';
import { uptimeKumaPreset } from './uptime-kuma';

/**
 * Every preset by the name in its URL. Keyed by the contract's names, so a name added there
 * without a preset here (or the reverse) does not compile.
 */
export const HOOK_PRESET_TABLE: Readonly<Record<HookPresetName, HookPreset>> = {
  alertmanager: alertmanagerPreset,
  grafana: grafanaPreset,
  github: githubPreset,
  'uptime-kuma': uptimeKumaPreset,
  generic: genericPreset,
};

for (const [name, preset] of Object.entries(HOOK_PRESET_TABLE)) {
  if (preset.name !== name) throw new Error(`hook preset "${preset.name}" is listed as "${name}"`);
}
