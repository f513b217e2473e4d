import { z } from 'zod';

import type { LoginItemState, SettingsUpdateResult } from '../../preload/desktop-api';
import { desktopSettingsPatchSchema, type DesktopSettingsService } from '../../settings';
import { IpcChannel } from '../channels';
import { noArgs, type IpcRegistrar } from '../ipc-main';

/**
 * registerSettingsHandlers() reads and changes desktop settings. Switching the LAN on needs the
 * user's consent in a native dialog first; declining leaves everything unchanged.
 */
export function registerSettingsHandlers(
  ipc: IpcRegistrar,
  deps: {
    settings: DesktopSettingsService;
    /** Shows the LAN exposure warning; resolves true when the user accepts. */
    confirmLan(port: number): Promise<boolean>;
    /** Ordered shutdown, then start again. */
    restart(): void;
    /** What the OS has registered for start at login. */
    loginItemState(): Promise<LoginItemState>;
  },
): void {
  ipc.handle(IpcChannel.getSettings, noArgs, () => deps.settings.get());
  ipc.handle(IpcChannel.getLoginItem, noArgs, () => deps.loginItemState());
  ipc.handle(
    IpcChannel.updateSettings,
    z.tuple([desktopSettingsPatchSchema]),
    async (patch): Promise<SettingsUpdateResult> => {
      const current = deps.settings.get();
      if (patch.listenOnLan === true && !current.listenOnLan) {
        const accepted = await deps.confirmLan(patch.port ?? current.port);
        if (!accepted) return { settings: current, restartRequired: false, applied: false };
      }
      const update = deps.settings.update(patch);
      return { settings: update.settings, restartRequired: update.restartRequired, applied: true };
    },
  );
  ipc.handle(IpcChannel.restartApp, noArgs, () => deps.restart());
}
