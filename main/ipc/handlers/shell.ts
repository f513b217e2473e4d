import { z } from 'zod';

import { safelyOpenExternal, type ShellLike } from '../../security';
import { IpcChannel } from '../channels';
import { noArgs, type IpcRegistrar } from '../ipc-main';

/** The part of Electron's shell these handlers use. */
export interface ShellHandlersShellLike extends ShellLike {
  /** Resolves '' on success or an error message (Electron's contract). */
  openPath(path: string): Promise<string>;
}

/**
 * registerShellHandlers() opens http(s) links in the system browser and shows the data folder.
 * The folder is main's own path: the renderer never names a path to open.
 */
export function registerShellHandlers(
  ipc: IpcRegistrar,
  deps: { shell: ShellHandlersShellLike; dataDir: string },
): void {
  ipc.handle(IpcChannel.openExternal, z.tuple([z.string().max(8192)]), (url) =>
    safelyOpenExternal(url, deps.shell),
  );
  ipc.handle(IpcChannel.revealDataFolder, noArgs, async () => {
    const error = await deps.shell.openPath(deps.dataDir);
    if (error) throw new Error(`could not open the data folder: ${error}`);
  });
}
