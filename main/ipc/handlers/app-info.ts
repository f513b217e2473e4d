import { IpcChannel } from '../channels';
import { noArgs, type IpcRegistrar } from '../ipc-main';

/** registerAppInfoHandlers() answers the app's version. */
export function registerAppInfoHandlers(ipc: IpcRegistrar, deps: { version: string }): void {
  ipc.handle(IpcChannel.getAppVersion, noArgs, () => deps.version);
}
