import { IpcChannel } from '../channels';
import { noArgs, type IpcRegistrar } from '../ipc-main';

/**
 * registerReaderHandlers() hears from the console's reader: that the page listens for
 * notification clicks, and that the user changed the unread count (main then re-reads it from
 * the server for the tray and the badge instead of waiting for its next poll).
 */
export function registerReaderHandlers(
  ipc: IpcRegistrar,
  deps: { readerReady(): void; unreadChanged(): Promise<void> },
): void {
  ipc.on(IpcChannel.readerReady, noArgs, () => deps.readerReady());
  ipc.handle(IpcChannel.unreadChanged, noArgs, () => deps.unreadChanged());
}
