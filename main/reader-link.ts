/**
 * Opening a hosted message in the window when its notification is clicked. A console page that
 * listens (it said so through the bridge) gets the id and routes to the reader itself, keeping
 * its state and skipping a reload; any other window (just created, still loading, showing an
 * error) loads the reader's URL instead.
 */
import { MainToRenderer } from './ipc/channels';
import { messageReaderPath } from './notifications';

/** The part of a window the reader link uses. */
export interface ReaderWindowLike {
  readonly webContents: { readonly id: number; send(channel: string, ...args: unknown[]): void };
  loadURL(url: string): Promise<void>;
}

/** How a message was opened: in the page, or by loading the reader's URL. */
export type ReaderOpen = 'in-page' | 'load';

export interface ReaderLink {
  /** The page in WebContents `contentsId` listens for open-message requests. */
  listening(contentsId: number): void;
  /** WebContents `contentsId` started loading a page: the old page's listener is gone. */
  unloaded(contentsId: number): void;
  /** Shows message `id` in `win`; a failed load is reported to `onLoadError`. */
  open(win: ReaderWindowLike, id: number): ReaderOpen;
}

/** createReaderLink() tracks which page listens; `origin` is the console's origin. */
export function createReaderLink(origin: string, onLoadError: (err: unknown) => void): ReaderLink {
  let listeningId: number | null = null;
  return {
    listening(contentsId) {
      listeningId = contentsId;
    },
    unloaded(contentsId) {
      if (listeningId === contentsId) listeningId = null;
    },
    open(win, id) {
      if (listeningId === win.webContents.id) {
        win.webContents.send(MainToRenderer.openMessage, id);
        return 'in-page';
      }
      win.loadURL(`${origin}${messageReaderPath(id)}`).catch(onLoadError);
      return 'load';
    },
  };
}
