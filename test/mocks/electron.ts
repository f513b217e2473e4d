import type { AppMenuItem } from '../../main/app-menu';
import type { ElectronMain, MainBrowserWindow, NativeImageLike } from '../../main/electron';
import type { IpcEventLike } from '../../main/ipc/ipc-main';
import type { LoginItemSettingsLike } from '../../main/login-item';
import type { NotificationText } from '../../main/notifications';
import type { MessageBoxSpec } from '../../main/port-choice';
import type { PortPromptWindowOptions, PromptWindowLike } from '../../main/port-prompt';
import type { MainWindowOptions } from '../../main/window';
import type { TrayMenuItem } from '../../main/tray';

/**
 * A stand-in for Electron's main-process module that records what boot() does with it, so the
 * desktop wiring runs under plain Node against the real server. It imitates only what Herald
 * uses (main/electron.ts); nothing here is loaded by the app itself.
 */
export interface FakeElectron extends ElectronMain {
  windows: FakeWindow[];
  /** Port prompts opened ("Type a port…"), in order. */
  prompts: FakePromptWindow[];
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
  /** Codes app.exit() was called with, in order. */
  exits: number[];
  /** app.relaunch() calls, with their options. */
  relaunches: Array<{ execPath?: string; args?: string[] } | undefined>;
  /** Error boxes shown (the start-failure dialog). */
  errorBoxes: Array<{ title: string; content: string }>;
  /** The application menu set with Menu.setApplicationMenu (the template, as built). */
  applicationMenu: AppMenuItem[] | null;
  /** The app's own events: tests emit 'before-quit', 'second-instance'… as Electron would. */
  appEvents: Emitter;
  /** powerMonitor's events ('shutdown'). */
  powerEvents: Emitter;
  /** What the session's handlers were set to, so tests can ask them as Chromium would. */
  sessionHandlers: {
    headers?: Parameters<
      ElectronMain['session']['defaultSession']['webRequest']['onHeadersReceived']
    >[0];
    permissionRequest?: Parameters<
      ElectronMain['session']['defaultSession']['setPermissionRequestHandler']
    >[0];
    permissionCheck?: Parameters<
      ElectronMain['session']['defaultSession']['setPermissionCheckHandler']
    >[0];
  };
  /** URLs handed to shell.openExternal, and folders to shell.openPath. */
  openedExternal: string[];
  openedPaths: string[];
  /** When set, constructing a Notification throws it (a desktop without a notification daemon). */
  notificationError: Error | null;
  /** When set, constructing a Tray throws it. */
  trayError: Error | null;
  /** What requestSingleInstanceLock() answers (false: another instance runs). */
  singleInstance: boolean;
  /** The OS's login items, as Electron reaches them on the platform the test sets. */
  loginItems: FakeLoginItems;
  /** When set, the next loadURL rejects with it (as Electron does with a net error). */
  loadError: (Error & { code?: string; errno?: number }) | null;
  /** The default session's cookies by name (the fake keeps one origin's). */
  cookies: Map<string, string>;
  /**
   * What Chromium does when the window loads a URL that sets cookies (the desktop sign-in):
   * fetches it and keeps the cookies it sets, announcing each change. The fake's loadURL only
   * records URLs, so tests call this where the page would have loaded.
   */
  loadCookies(url: string): Promise<Response>;
  /** Sets or (value null) removes a cookie as the page would, announcing the change. */
  setCookie(name: string, value: string | null): void;
}

/** A NativeImage stand-in that remembers its file and whether it became a template. */
export interface FakeImage extends NativeImageLike {
  path: string;
  template: boolean;
}

type Listener = (...args: never[]) => unknown;

export class Emitter {
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

/**
 * The port prompt's window (main/port-prompt.ts). Electron reports the title its page sets as
 * `page-title-updated`; the page itself runs in Chromium in test/e2e/web/port-prompt.e2e.test.ts,
 * so here a test says what the page would set, with {@link FakePromptWindow.pageSetsTitle}.
 */
export class FakePromptWindow extends Emitter implements PromptWindowLike {
  readonly loaded: string[] = [];
  visible = false;
  destroyed = false;
  /** Titles whose event main prevented (the window keeps its own title then). */
  readonly keptTitles: string[] = [];
  constructor(readonly options: PortPromptWindowOptions) {
    super();
  }
  async loadURL(url: string) {
    this.loaded.push(url);
    // The page's own <title> arrives first, as Chromium reports a title set while loading.
    this.pageSetsTitle('Herald: choose a port');
    this.emit('ready-to-show');
  }
  /** What the page does when the user answers: it sets document.title. */
  pageSetsTitle(title: string) {
    let prevented = false;
    this.emit('page-title-updated', { preventDefault: () => (prevented = true) }, title);
    if (prevented) this.keptTitles.push(title);
  }
  show() {
    this.visible = true;
  }
  /** The close button, or close(): the window goes and says so. */
  close() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    this.emit('closed');
  }
  isDestroyed() {
    return this.destroyed;
  }
}

export class FakeWindow extends Emitter implements MainBrowserWindow {
  readonly loaded: string[] = [];
  /** Messages main sent to the page: [channel, ...args]. */
  readonly sent: unknown[][] = [];
  visible = false;
  destroyed = false;
  minimized = false;
  reloads = 0;
  /** setOverlayIcon() calls: [image or null, description]. */
  readonly overlays: Array<[NativeImageLike | null, string]> = [];
  openHandler: ((details: { url: string }) => { action: 'deny' }) | undefined;
  /** Rejects the next loadURL with this, then clears it. */
  nextLoadError: (Error & { code?: string; errno?: number }) | null = null;
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
      reload: () => void this.reloads++,
      setWindowOpenHandler: (handler) => void (this.openHandler = handler),
      on: ((event: string, listener: Listener) =>
        events.on(event, listener)) as MainBrowserWindow['webContents']['on'],
    };
  }
  setOverlayIcon(overlay: NativeImageLike | null, description: string) {
    this.overlays.push([overlay, description]);
  }
  /**
   * A navigation the page starts, as Chromium reports it: will-navigate listeners may
   * preventDefault. Answers whether it went ahead.
   */
  navigate(url: string): boolean {
    let prevented = false;
    this.webContents.events.emit(
      'will-navigate',
      { url, preventDefault: () => (prevented = true) },
      url,
    );
    return !prevented;
  }
  /** window.open() from the page: the handler's answer. */
  open(url: string): { action: 'deny' } | undefined {
    return this.openHandler?.({ url });
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
  /** As on Windows and Linux: a window never shown is shown in its minimised state. */
  minimize() {
    this.minimized = true;
  }
  isVisible() {
    return this.visible;
  }
  isDestroyed() {
    return this.destroyed;
  }
  async loadURL(url: string) {
    this.webContents.events.emit('did-start-loading');
    this.loaded.push(url);
    const error = this.nextLoadError;
    if (error) {
      this.nextLoadError = null;
      throw error;
    }
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

/**
 * Login items as Electron 38 reaches them on each OS (shell/browser/browser_win.cc,
 * browser_mac.mm, browser_linux.cc), so a test sees what the real calls answer:
 * - win32: a Run value named after the app user model id holding the quoted executable and the
 *   args; `openAtLogin` matches the whole command line, so asking without the same `args` finds
 *   nothing; `executableWillLaunchAtLogin` also reads Task Manager's StartupApproved switch;
 * - darwin: SMAppService's status; `wasOpenedAtLogin` for a start at login;
 * - linux: setLoginItemSettings does nothing and the answer is all false.
 */
export class FakeLoginItems {
  platform: NodeJS.Platform = 'linux';
  execPath = '/opt/Herald/herald-desktop';
  /** Windows: HKCU\...\Run's value for the app, and its StartupApproved switch. */
  runValue: string | null = null;
  runEnabled = true;
  /** macOS: SMAppService.mainApp's status, and what register() leads to. */
  macStatus: 'not-registered' | 'enabled' | 'requires-approval' = 'not-registered';
  macNeedsApproval = false;
  /** macOS: this run was opened as a login item. */
  openedAtLogin = false;
  /** Every setLoginItemSettings() call. */
  readonly calls: Array<{ openAtLogin: boolean; args?: string[] }> = [];

  private command(args: string[] = []): string {
    return [`"${this.execPath}"`, ...args].join(' ');
  }
  set(settings: { openAtLogin: boolean; args?: string[] }): void {
    this.calls.push(settings);
    if (this.platform === 'win32') {
      this.runValue = settings.openAtLogin ? this.command(settings.args) : null;
      this.runEnabled = true;
    } else if (this.platform === 'darwin') {
      this.macStatus = !settings.openAtLogin
        ? 'not-registered'
        : this.macNeedsApproval
          ? 'requires-approval'
          : 'enabled';
    }
  }
  get(options: { args?: string[] } = {}): LoginItemSettingsLike {
    if (this.platform === 'win32') {
      return {
        openAtLogin: this.runValue === this.command(options.args),
        executableWillLaunchAtLogin:
          this.runValue !== null && this.runValue.startsWith(this.command()) && this.runEnabled,
      };
    }
    if (this.platform === 'darwin') {
      return {
        openAtLogin: this.macStatus === 'enabled',
        status: this.macStatus,
        wasOpenedAtLogin: this.openedAtLogin,
      };
    }
    return { openAtLogin: false, wasOpenedAtLogin: false };
  }
}

/** createFakeElectron() returns a fresh fake; `appData` is the folder getPath('appData') gives. */
export function createFakeElectron(appData: string): FakeElectron {
  // A home folder of its own: the autostart entry and the command-line tool write below it.
  const paths: Record<string, string> = { appData, home: appData };
  const windows: FakeWindow[] = [];
  const prompts: FakePromptWindow[] = [];
  const trays: FakeTray[] = [];
  const notifications: FakeElectron['notifications'] = [];
  const dialogs: MessageBoxSpec[] = [];
  const dialogAnswers: number[] = [];
  const handlers = new Map<string, (event: IpcEventLike, ...args: unknown[]) => unknown>();
  const listeners = new Map<string, Array<(event: IpcEventLike, ...args: unknown[]) => void>>();
  const appEvents = new Emitter();
  const powerEvents = new Emitter();
  const sessionHandlers: FakeElectron['sessionHandlers'] = {};
  const cookies = new Map<string, string>();
  const cookieEvents = new Emitter();
  const setCookie = (name: string, value: string | null) => {
    if (value === null || value === '') cookies.delete(name);
    else cookies.set(name, value);
    cookieEvents.emit('changed', {}, { name }, value ? 'explicit' : 'expired', !value);
  };

  const fake: FakeElectron = {
    windows,
    prompts,
    trays,
    notifications,
    dialogs,
    dialogAnswers,
    quits: 0,
    exits: [],
    relaunches: [],
    errorBoxes: [],
    applicationMenu: null,
    appEvents,
    powerEvents,
    sessionHandlers,
    openedExternal: [],
    openedPaths: [],
    notificationError: null,
    trayError: null,
    singleInstance: true,
    loginItems: new FakeLoginItems(),
    loadError: null,
    cookies,
    setCookie,
    async loadCookies(url) {
      const res = await fetch(url, { redirect: 'manual' });
      const pair = res.headers.get('set-cookie')?.split(';')[0];
      if (pair) setCookie(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      return res;
    },
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
      requestSingleInstanceLock: () => fake.singleInstance,
      whenReady: async () => undefined,
      // Like Electron's: quitting emits before-quit, whose listeners may hold the quit.
      quit: () => {
        fake.quits++;
        appEvents.emit('before-quit', { preventDefault: () => undefined });
      },
      exit: (code?: number) => void fake.exits.push(code ?? 0),
      relaunch: (options) => void fake.relaunches.push(options),
      setLoginItemSettings: (settings) => fake.loginItems.set(settings),
      getLoginItemSettings: (options) => fake.loginItems.get(options),
      setBadgeCount: () => true,
      on: ((event: string, listener: Listener) =>
        appEvents.on(event, listener)) as ElectronMain['app']['on'],
    },
    // One constructor for both kinds of window Herald opens, told apart by their options as
    // main/electron.ts types them: the console window has a preload, the port prompt none.
    BrowserWindow: function FakeBrowserWindow(
      options: MainWindowOptions | PortPromptWindowOptions,
    ): FakeWindow | FakePromptWindow {
      if (!('preload' in options.webPreferences)) {
        const prompt = new FakePromptWindow(options as PortPromptWindowOptions);
        prompts.push(prompt);
        return prompt;
      }
      const win = new FakeWindow(options as MainWindowOptions);
      windows.push(win);
      // Electron announces every new WebContents on the app before anything loads in it.
      appEvents.emit('web-contents-created', {}, win.webContents);
      if (fake.loadError) {
        win.nextLoadError = fake.loadError;
        fake.loadError = null;
      }
      return win;
    } as unknown as ElectronMain['BrowserWindow'],
    Tray: class extends FakeTray {
      constructor(image: unknown) {
        if (fake.trayError) throw fake.trayError;
        super(image);
        trays.push(this);
      }
    },
    Menu: {
      buildFromTemplate: (template) => template,
      setApplicationMenu: (menu) => void (fake.applicationMenu = menu as AppMenuItem[]),
    },
    nativeImage: {
      createFromPath: (path): FakeImage => {
        const image: FakeImage = {
          path,
          template: false,
          setTemplateImage: (on) => void (image.template = on),
        };
        return image;
      },
    },
    powerMonitor: {
      on: ((event: string, listener: Listener) =>
        powerEvents.on(event, listener)) as ElectronMain['powerMonitor']['on'],
    },
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
      showErrorBox: (title, content) => void fake.errorBoxes.push({ title, content }),
    },
    shell: {
      openExternal: async (url) => void fake.openedExternal.push(url),
      openPath: async (path) => {
        fake.openedPaths.push(path);
        return '';
      },
    },
    session: {
      defaultSession: {
        webRequest: {
          onHeadersReceived: (listener) => void (sessionHandlers.headers = listener),
        },
        setPermissionRequestHandler: (handler) =>
          void (sessionHandlers.permissionRequest = handler),
        setPermissionCheckHandler: (handler) => void (sessionHandlers.permissionCheck = handler),
        cookies: {
          get: async ({ name }) => {
            const value = cookies.get(name);
            return value === undefined ? [] : [{ value }];
          },
          on: (event, listener) => cookieEvents.on(event, listener),
        },
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
