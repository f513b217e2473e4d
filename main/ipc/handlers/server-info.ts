import { z } from 'zod';

import type { ServerInfo } from '../../preload/desktop-api';
import { IpcChannel } from '../channels';
import { noArgs, type IpcRegistrar } from '../ipc-main';

/** registerServerInfoHandlers() reports where the server listens and pauses deliveries. */
export function registerServerInfoHandlers(
  ipc: IpcRegistrar,
  deps: {
    serverInfo(): ServerInfo;
    /** Pauses or resumes deliveries and answers the new state. */
    setDeliveriesPaused(paused: boolean): boolean;
  },
): void {
  ipc.handle(IpcChannel.getServerInfo, noArgs, () => deps.serverInfo());
  ipc.handle(IpcChannel.setDeliveriesPaused, z.tuple([z.boolean()]), (paused) =>
    deps.setDeliveriesPaused(paused),
  );
}
