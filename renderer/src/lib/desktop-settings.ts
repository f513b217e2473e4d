// Type-only: the declaration file is self-contained, nothing of main/ is bundled.
import type {
  DesktopSettings,
  LoginItemState,
  ServerInfo,
} from '../../../main/preload/desktop-api';

export type { DesktopSettings, LoginItemState, ServerInfo };

/** Settings the embedded server reads only when it starts. */
export type RestartField = 'port' | 'listenOnLan';

/** The ports main accepts (below 1024 needs root on Linux and macOS). */
export const PORT_MIN = 1024;
export const PORT_MAX = 65535;

/** isValidPort() is true for a whole number main would accept as the server's port. */
export function isValidPort(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= PORT_MIN && (value as number) <= PORT_MAX;
}

/**
 * pendingRestart() lists the saved settings the running server does not use yet: a port or LAN
 * change saved earlier (in this page, the tray or config.json) applies only after a restart.
 * Comparing with what the server runs with, rather than remembering `restartRequired`, also
 * clears the notice when the user switches back to the running value.
 */
export function pendingRestart(
  saved: Pick<DesktopSettings, RestartField>,
  running: Pick<ServerInfo, RestartField>,
): RestartField[] {
  const fields: RestartField[] = [];
  if (saved.port !== running.port) fields.push('port');
  if (saved.listenOnLan !== running.listenOnLan) fields.push('listenOnLan');
  return fields;
}

/**
 * loginItemText() words what the OS has registered for start at login (an i18n key), and
 * whether it needs the user: macOS waiting for approval, Windows' Task Manager switch off. A
 * development run registers nothing.
 */
export function loginItemText(state: LoginItemState): { key: string; warning: boolean } {
  if (!state.supported) return { key: 'desktop.loginItemUnsupported', warning: false };
  if (state.attention === 'requires-approval') {
    return { key: 'desktop.loginItemNeedsApproval', warning: true };
  }
  if (state.attention === 'disabled-by-user') {
    return { key: 'desktop.loginItemDisabledByUser', warning: true };
  }
  return state.openAtLogin
    ? { key: 'desktop.loginItemOn', warning: false }
    : { key: 'desktop.loginItemOff', warning: false };
}

/**
 * bridgeErrorText() is the message of a rejected bridge call without the prefix Electron adds
 * ("Error invoking remote method 'desktop:update-settings': IpcArgumentError: …").
 */
export function bridgeErrorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^Error invoking remote method '[^']*': (?:\w*Error: )?/, '');
}
