import { z } from 'zod';

import type { IpcChannelName } from './channels';

/**
 * The only way main registers IPC: every message is checked to come from Herald's own window
 * showing Herald's own origin, and its arguments are parsed with a schema before the handler
 * sees them. Anything else is dropped and logged.
 */

/** The part of an IPC event used to identify the sender. */
export interface IpcEventLike {
  readonly sender: { readonly id: number };
  /** The frame that sent the message; null once it navigated away or was destroyed. */
  readonly senderFrame?: { readonly url: string } | null;
}

/** The part of Electron's ipcMain the wrapper uses. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
  on(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => void): unknown;
  removeAllListeners(channel: string): unknown;
}

/** Who may talk to main: the window's WebContents id and the server origin it shows. */
export interface TrustedSender {
  /** Id of the main window's WebContents, or null before it exists. */
  webContentsId(): number | null;
  /** Origin of the embedded server, e.g. http://127.0.0.1:8765. */
  origin(): string | null;
}

/** Minimal logger for dropped messages. */
export interface IpcLogger {
  warn(msg: string): void;
}

/**
 * isTrustedSender() accepts a message only from the main window's WebContents whose sending
 * frame shows the server's origin, so neither another window nor a page that somehow got
 * loaded from elsewhere can use the bridge.
 */
export function isTrustedSender(event: IpcEventLike, trusted: TrustedSender): boolean {
  const id = trusted.webContentsId();
  const origin = trusted.origin();
  if (id === null || origin === null) return false;
  if (event.sender.id !== id) return false;
  const frameUrl = event.senderFrame?.url;
  if (!frameUrl) return false;
  try {
    return new URL(frameUrl).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}

/** Thrown to the renderer when a trusted sender passes arguments that do not validate. */
export class IpcArgumentError extends Error {
  constructor(channel: string, issues: string) {
    super(`invalid arguments for ${channel}: ${issues}`);
    this.name = 'IpcArgumentError';
  }
}

/** A schema for a handler's argument list. */
export type ArgsSchema = z.ZodType<readonly unknown[]>;

/** Registers IPC handlers behind the sender and argument checks. */
export interface IpcRegistrar {
  /**
   * Registers a request handler (renderer `invoke`), replacing any previous one on the channel.
   * Untrusted senders get `undefined`; invalid arguments reject with {@link IpcArgumentError}.
   */
  handle<S extends ArgsSchema>(
    channel: IpcChannelName,
    args: S,
    handler: (...args: z.infer<S>) => unknown,
  ): void;
  /** Registers a one-way listener (renderer `send`), replacing previous listeners. */
  on<S extends ArgsSchema>(
    channel: IpcChannelName,
    args: S,
    listener: (...args: z.infer<S>) => void,
  ): void;
  /** Removes every handler this registrar added (on shutdown or before a new window). */
  dispose(): void;
}

/** No arguments at all: extra ones are refused rather than ignored. */
export const noArgs = z.tuple([]);

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'args'}: ${i.message}`).join('; ');
}

/** createIpcRegistrar() returns the wrapper through which main registers IPC. */
export function createIpcRegistrar(
  ipcMain: IpcMainLike,
  trusted: TrustedSender,
  log: IpcLogger,
): IpcRegistrar {
  const handled = new Set<string>();
  const listened = new Set<string>();
  return {
    handle(channel, schema, handler) {
      // ipcMain.handle throws on a second registration; replacing keeps re-registration
      // (a recreated window, a restart in tests) working.
      ipcMain.removeHandler(channel);
      ipcMain.handle(channel, (event, ...raw) => {
        if (!isTrustedSender(event, trusted)) {
          log.warn(`ipc: dropped ${channel} from an untrusted sender`);
          return undefined;
        }
        const parsed = schema.safeParse(raw);
        if (!parsed.success) throw new IpcArgumentError(channel, describe(parsed.error));
        return handler(...(parsed.data as z.infer<typeof schema>));
      });
      handled.add(channel);
    },
    on(channel, schema, listener) {
      ipcMain.removeAllListeners(channel);
      ipcMain.on(channel, (event, ...raw) => {
        if (!isTrustedSender(event, trusted)) {
          log.warn(`ipc: dropped ${channel} from an untrusted sender`);
          return;
        }
        const parsed = schema.safeParse(raw);
        if (!parsed.success) {
          log.warn(`ipc: dropped ${channel}: ${describe(parsed.error)}`);
          return;
        }
        listener(...(parsed.data as z.infer<typeof schema>));
      });
      listened.add(channel);
    },
    dispose() {
      for (const channel of handled) ipcMain.removeHandler(channel);
      for (const channel of listened) ipcMain.removeAllListeners(channel);
      handled.clear();
      listened.clear();
    },
  };
}
