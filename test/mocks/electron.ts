import type { ElectronMain, MainBrowserWindow } from '../../main/electron';
import type { IpcEventLike } from '../../main/ipc/ipc-main';
import type { NotificationText } from '../../main/notifications';
import type { MessageBoxSpec } from '../../main/port-choice';
import type { MainWindowOptions } from '../../main/window';
import type { TrayMenuItem } from '../../main/tray';

/**
 * A stand-in for Electron's main-process module that records what boot() does with it, so the
 * desktop wiring runs under plain Node against the real server. It imitates only what Herald
 * uses (main/electron.ts); nothing here is loaded by the app itself.
 */
export interface FakeElectron extends ElectronMain {
  windows: FakeWindow[];
  trays: FakeTray[];
  notifications: Array<NotificationText & { shown: boolean; fire(event: 'click' | 'close'): void }>;
  dialogs: MessageBoxSpec[];
  /** Answers for dialog.showMessageBox, in order (button index). */
  dialogAnswers: number[];
  ipc: {
    handlers: Map<string, (event: IpcEventLike, ...args: unknown[]) => unknown>;
    /** Calls a handler as the given window's page would. */
    invoke(win: FakeWindow, channel: string, ...args: unknown[]): Promise<unknown>;
    /** Sends a one-way message as the given window's page would. */
    send(win: FakeWindow, channel: string, ...args: unknown[]): void;
  };
  quits: number;
  /** When set, constructing a Notification throws it (a desktop without a notification daemon). */
  notificationError: Error | null;
}

type Listener = (...args: never[]) => unknown;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  once(event: string, listener: Listener) {
    return this.on(event, listener);
  }
  emit(event: string, ...args: unknown[]) {
    for (const listener of this.listeners.get(event) ?? [])
      (listener as (...a: unknown[]) => unknown)(...args);
  }
}

let nextContentsId = 1;

export class FakeWindow extends Emitter implements MainBrowserWindow {
  readonly loaded: string[] = [];
  /** Messages main sent to the page: [channel, ...args]. */
  readonly sent: unknown[][] = [];
  visible = false;
  destroyed = false;
  minimized = false;
  openHandler: ((details: { url: string }) => { action: 'deny' }) | undefined;
  readonly webContents: MainBrowserWindow['webContents'] & { events: Emitter };

  constructor(readonly options: MainWindowOptions) {
    super();
    const events = new Emitter();
    const id = nextContentsId++;
    this.webContents = {
      id,
      events,
      getURL: () => this.loaded.at(-1) ?? '',
      send: (channel: string, ...args: unknown[]) => void this.sent.push([channel, ...args]),
      setWindowOpenHandler: (handler) => void (this.openHandler = handler),
      on: ((event: string, listener: Listener) =>
        events.on(event, listener)) as MainBrowserWindow['webContents']['on'],
    };
  }
  show() {
    this.visible = true;
  }
  hide() {
    this.visible = false;
  }
  focus() {}
  restore() {
    this.minimized = false;
  }
  isMinimized() {
    return this.minimized;
  }
  isDestroyed() {
    return this.destroyed;
  }
  async loadURL(url: string) {
    this.webContents.events.emit('did-start-loading');
    this.loaded.push(url);
    this.emit('ready-to-show');
  }
  /** What the close button does: listeners may preventDefault. */
  close(): boolean {
    let prevented = false;
    this.emit('close', { preventDefault: () => (prevented = true) });
    if (!prevented) {
      this.destroyed = true;
      this.emit('closed');
    }
    return !prevented;
  }
}

export class FakeTray extends Emitter {
  tooltip = '';
  title = '';
  menu: TrayMenuItem[] = [];
  destroyed = false;
  constructor(readonly image: unknown) {
    super();
  }
  setToolTip(text: string) {
    this.tooltip = text;
  }
  setTitle(text: string) {
    this.title = text;
  }
  setContextMenu(menu: unknown) {
    this.menu = menu as TrayMenuItem[];
  }
  destroy() {
    this.destroyed = true;
  }
}

/** createFakeElectron() returns a fresh fake; `appData` is the folder getPath('appData') gives. */
export function createFakeElectron(appData: string): FakeElectron {
  const paths: Record<string, string> = { appData };
  const windows: FakeWindow[] = [];
  const trays: FakeTray[] = [];
  const notifications: FakeElectron['notifications'] = [];
  const dialogs: MessageBoxSpec[] = [];
  const dialogAnswers: number[] = [];
  const handlers = new Map<string, (event: IpcEventLike, ...args: unknown[]) => unknown>();
  const listeners = new Map<string, Array<(event: IpcEventLike, ...args: unknown[]) => void>>();
  const appEvents = new Emitter();

  const fake: FakeElectron = {
    windows,
    trays,
    notifications,
    dialogs,
    dialogAnswers,
    quits: 0,
    notificationError: null,
    app: {
      isPackaged: false,
      getPath: (name) => {
        const value = paths[name];
        if (!value) throw new Error(`fake electron: no path ${name}`);
        return value;
      },
      setPath: (name, value) => void (paths[name] = value),
      getVersion: () => '0.0.0-fake',
      getAppPath: () => appData,
      setName: () => undefined,
      setAppUserModelId: () => undefined,
      requestSingleInstanceLock: () => true,
      whenReady: async () => undefined,
      quit: () => void fake.quits++,
      exit: () => undefined,
      relaunch: () => undefined,
      setLoginItemSettings: () => undefined,
      setBadgeCount: () => true,
      on: ((event: string, listener: Listener) =>
        appEvents.on(event, listener)) as ElectronMain['app']['on'],
    },
    BrowserWindow: class extends FakeWindow {
      constructor(options: MainWindowOptions) {
        super(options);
        windows.push(this);
      }
    },
    Tray: class extends FakeTray {
      constructor(image: unknown) {
        super(image);
        trays.push(this);
      }
    },
    Menu: { buildFromTemplate: (template) => template },
    nativeImage: { createFromPath: (path) => ({ path }) },
    Notification: Object.assign(
      class {
        readonly events = new Emitter();
        constructor(text: NotificationText) {
          if (fake.notificationError) throw fake.notificationError;
          const record = {
            ...text,
            shown: false,
            fire: (event: 'click' | 'close') => this.events.emit(event),
          };
          notifications.push(record);
          this.record = record;
        }
        record: FakeElectron['notifications'][number];
        show() {
          this.record.shown = true;
        }
        on(event: 'click' | 'close', listener: () => void) {
          this.events.on(event, listener);
          return this;
        }
      },
      { isSupported: () => true },
    ),
    dialog: {
      showMessageBox: async (spec) => {
        dialogs.push(spec);
        return { response: dialogAnswers.shift() ?? spec.cancelId };
      },
      showErrorBox: () => undefined,
    },
    shell: {
      openExternal: async () => undefined,
      openPath: async () => '',
    },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: () => undefined },
        setPermissionRequestHandler: () => undefined,
        setPermissionCheckHandler: () => undefined,
      },
    },
    ipcMain: {
      handle: (channel, listener) => void handlers.set(channel, listener),
      removeHandler: (channel) => void handlers.delete(channel),
      on: (channel, listener) =>
        void listeners.set(channel, [...(listeners.get(channel) ?? []), listener]),
      removeAllListeners: (channel) => void listeners.delete(channel),
    },
    ipc: {
      handlers,
      async invoke(win, channel, ...args) {
        const handler = handlers.get(channel);
        if (!handler) throw new Error(`fake electron: no handler for ${channel}`);
        return handler(
          { sender: { id: win.webContents.id }, senderFrame: { url: win.webContents.getURL() } },
          ...args,
        );
      },
      send(win, channel, ...args) {
        const event = {
          sender: { id: win.webContents.id },
          senderFrame: { url: win.webContents.getURL() },
        };
        for (const listener of listeners.get(channel) ?? []) listener(event, ...args);
      },
    },
  };
  return fake;
}
