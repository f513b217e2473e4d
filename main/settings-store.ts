import ElectronStore from 'electron-store';

import { SETTINGS_FILE, type SettingsStoreLike } from './settings';

/**
 * openSettingsStore() opens `config.json` in `dir` with electron-store. Kept apart from
 * settings.ts because electron-store imports Electron at load time, which plain-Node tests
 * cannot do; validation and defaults live in settings.ts.
 */
export function openSettingsStore(dir: string): SettingsStoreLike {
  return new ElectronStore<Record<string, unknown>>({
    cwd: dir,
    name: SETTINGS_FILE.replace(/\.json$/, ''),
    // An unreadable file (a crash mid-edit by hand) resets to defaults instead of stopping the
    // app from starting; a readable file with bad values is repaired field by field instead.
    clearInvalidConfig: true,
  });
}
