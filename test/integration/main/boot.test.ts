import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { menuRoles } from '../../../main/app-menu';
import { boot, type Desktop } from '../../../main/boot';
import { IpcChannel, MainToRenderer } from '../../../main/ipc/channels';
import { createLoginItem, nodeAutostartFs } from '../../../main/login-item';
import { derivePaths, ensureDirs } from '../../../main/paths';
import { createDesktopSettings, type SettingsStoreLike } from '../../../main/settings';
import { createShutdown } from '../../../main/shutdown';
import { installTestHooks, type TestHooks } from '../../../main/test-hooks';
import { HostedMessage, User } from '../../../server/db/models';
import { startServer, type HeraldServer } from '../../../server/index';
import { ConsoleClient } from '../../helpers/herald';
import { createFakeElectron, type FakeElectron, type FakeImage } from '../../mocks/electron';
import { hashPassword } from '../../../server/features/auth/password-hash';

/**
 * boot() wired to the real embedded server (real SQLite in a temp folder, real HTTP on
 * loopback) with Electron replaced by a recorder: the desktop wiring that the Playwright
 * _electron suite checks end to end, run here where Electron cannot be installed.
 */

const ADMIN = { user: 'desk-admin', password: 'desk-admin-password' };

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function memoryStore(
  initial: Record<string, unknown>,
): SettingsStoreLike & { saved: Record<string, unknown> } {
  const store = {
    store: { ...initial },
    saved: {} as Record<string, unknown>,
    set(values: Record<string, unknown>) {
      Object.assign(store.store, values);
      store.saved = { ...store.store };
    },
  };
  return store;
}

describe('boot', () => {
  let temp: string;
  let electron: FakeElectron;
  let desktop: Desktop | null;
  let hooks: TestHooks;
  let blockers: net.Server[];

  beforeEach(() => {
    sessionEvents.length = 0;
    temp = mkdtempSync(path.join(tmpdir(), 'herald-boot-'));
    electron = createFakeElectron(temp);
    desktop = null;
    blockers = [];
    hooks = installTestHooks(false, { HERALD_TEST_HOOKS: '1' }, {})!;
    // The server creates the first administrator from these on a fresh data folder.
    vi.stubEnv('HERALD_ADMIN_USER', ADMIN.user);
    vi.stubEnv('HERALD_ADMIN_PASSWORD', ADMIN.password);
  });

  afterEach(async () => {
    if (desktop) await createShutdown(desktop.shutdownSteps()).run();
    for (const blocker of blockers)
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    vi.unstubAllEnvs();
    rmSync(temp, { recursive: true, force: true });
  });

  const sessionEvents: string[] = [];

  async function start(
    settings: Record<string, unknown>,
    options: {
      platform?: NodeJS.Platform;
      traySupported?: boolean;
      env?: Record<string, string | undefined>;
      quitting?: () => boolean;
      ignoredDatabaseVariables?: string[];
      startHidden?: boolean;
    } = {},
  ) {
    const paths = derivePaths(path.join(temp, 'Herald-dev'));
    ensureDirs(paths);
    const store = memoryStore(settings);
    desktop = await boot({
      electron,
      paths,
      settings: createDesktopSettings(store),
      ignoredDatabaseVariables: options.ignoredDatabaseVariables ?? [],
      loginItem: createLoginItem({
        platform: options.platform ?? 'linux',
        app: electron.app,
        env: options.env ?? {},
        execPath: electron.loginItems.execPath,
        homeDir: temp,
        fs: nodeAutostartFs,
      }),
      startHidden: options.startHidden ?? false,
      startServer,
      mainDir: path.join(temp, 'out', 'main'),
      version: '1.2.3-test',
      isQuitting: options.quitting ?? (() => false),
      hooks,
      platform: options.platform ?? 'linux',
      traySupported: options.traySupported ?? true,
      env: options.env ?? {},
      onSessionEnding: () => sessionEvents.push('ending'),
      onSessionEnd: () => sessionEvents.push('end'),
    });
    return { paths, store };
  }

  it('boot() opens one hardened window on the one-time desktop sign-in URL that signs in once', async () => {
    const port = await freePort();
    await start({ port });

    expect(electron.windows).toHaveLength(1);
    const win = electron.windows[0]!;
    expect(win.options.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
    });
    expect(win.options.webPreferences.preload).toBe(path.join(temp, 'out', 'preload', 'index.cjs'));
    const loginUrl = win.loaded[0]!;
    expect(loginUrl).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/api/console/desktop-login\\?secret=[\\w-]{43}$`),
    );
    expect(win.visible).toBe(true);

    // The page loads it: the session cookie lands in the window's session.
    const first = await electron.loadCookies(loginUrl);
    expect(first.status).toBe(302);
    const client = new ConsoleClient(`http://127.0.0.1:${port}`);
    client.cookie = `herald_session=${electron.cookies.get('herald_session')}`;
    expect(await client.ok('GET', '/me')).toMatchObject({ user: { username: ADMIN.user } });

    const replay = await fetch(loginUrl, { redirect: 'manual' });
    expect(replay.status).toBe(401);
    expect(hooks).toMatchObject({ ready: true, windowUrl: `http://127.0.0.1:${port}` });
  });

  it('boot() on a folder without an administrator hands the window the setup code', async () => {
    vi.stubEnv('HERALD_ADMIN_USER', '');
    vi.stubEnv('HERALD_ADMIN_PASSWORD', '');
    const port = await freePort();
    await start({ port });
    const first = await fetch(electron.windows[0]!.loaded[0]!, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const target = new URL(first.headers.get('location')!, `http://127.0.0.1:${port}`);
    expect(target.pathname).toBe('/sign-in');
    const code = target.searchParams.get('code');
    expect(code).toBe(desktop!.server.setupCode());

    const window = new ConsoleClient(`http://127.0.0.1:${port}`);
    await window.ok('POST', '/setup', {
      username: 'owner',
      password: 'owner-password',
      setupCode: code,
    });
    expect(desktop!.server.setupCode()).toBeNull();
  });

  /**
   * Signs the window in (its page loads the desktop sign-in), signs in, creates a hosted
   * channel and a template on it, and returns a V2 sender.
   */
  async function hostedTemplate(origin: string) {
    await electron.loadCookies(electron.windows[0]!.loaded[0]!);
    const client = new ConsoleClient(origin);
    await client.ok('POST', '/login', { username: ADMIN.user, password: ADMIN.password });
    const channel = await client.ok('POST', '/channels', {
      name: 'inbox',
      type: 'hosted',
      config: {},
    });
    const template = await client.ok('POST', '/templates', { name: 'alerts', text: 'body' });
    await client.ok('POST', `/templates/${template.id}/instances`, {
      channelId: channel.id,
      contentType: 'text',
    });
    const { token } = await client.ok('GET', `/templates/${template.id}/token`);
    const send = (title: string) =>
      fetch(`${origin}/api/v2/message/send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token, title }),
      });
    return { client, send };
  }

  it('boot() keeps a delivery sent when the native notification cannot be shown', async () => {
    const port = await freePort();
    await start({ port });
    electron.notificationError = new Error('no notification daemon');
    const { client, send } = await hostedTemplate(`http://127.0.0.1:${port}`);

    expect((await send('No daemon')).status).toBe(200);

    await vi.waitFor(() => expect(hooks.unread).toBe(1), { timeout: 10_000 });
    await vi.waitFor(async () => {
      const logs = await client.ok('GET', '/logs');
      expect(logs.items[0]).toMatchObject({ title: 'No daemon', status: 'sent' });
    });
  });

  it('boot() notifies and counts a hosted message, opens it on click and re-reads the count when asked', async () => {
    const port = await freePort();
    await start({ port });
    const origin = `http://127.0.0.1:${port}`;
    await electron.loadCookies(electron.windows[0]!.loaded[0]!);
    const client = new ConsoleClient(origin);
    await client.ok('POST', '/login', { username: ADMIN.user, password: ADMIN.password });
    const channel = await client.ok('POST', '/channels', {
      name: 'inbox',
      type: 'hosted',
      config: {},
    });
    const template = await client.ok('POST', '/templates', {
      name: 'alerts',
      markdown: '**{{host}}** is down',
      placeholders: [{ key: 'host', label: 'Host' }],
    });
    await client.ok('POST', `/templates/${template.id}/instances`, {
      channelId: channel.id,
      contentType: 'markdown',
    });
    const { token } = await client.ok('GET', `/templates/${template.id}/token`);

    const sent = await fetch(`${origin}/api/v2/message/send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token, title: 'Server down', placeholders: { host: 'web-1' } }),
    });
    expect(sent.status).toBe(200);

    await vi.waitFor(() => expect(electron.notifications).toHaveLength(1), { timeout: 10_000 });
    expect(electron.notifications[0]).toMatchObject({
      title: 'Server down',
      body: 'web-1 is down',
      shown: true,
    });
    await vi.waitFor(() => expect(electron.trays[0]!.tooltip).toBe('Herald: 1 unread message'));
    expect(hooks.unread).toBe(1);

    // No page has said it listens: the click loads the reader's URL.
    const win = electron.windows[0]!;
    electron.notifications[0]!.fire('click');
    const messageId = hooks.notifications[0]!.messageId;
    expect(win.loaded.at(-1)).toBe(`${origin}/messages/${messageId}`);
    expect(win.sent).toEqual([]);

    // The loaded console subscribes through the bridge: a click now routes inside the page.
    electron.ipc.send(win, IpcChannel.readerReady);
    const loads = win.loaded.length;
    electron.notifications[0]!.fire('click');
    expect(win.sent).toEqual([[MainToRenderer.openMessage, messageId]]);
    expect(win.loaded).toHaveLength(loads);

    // A reload drops that page's subscription until the new page subscribes again.
    await win.loadURL(`${origin}/`);
    electron.notifications[0]!.fire('click');
    expect(win.sent).toHaveLength(1);
    expect(win.loaded.at(-1)).toBe(`${origin}/messages/${messageId}`);

    // Reading the message in the console: the page asks main to re-read the count at once.
    await client.ok('PATCH', `/messages/${messageId}`, { read: true });
    await electron.ipc.invoke(win, IpcChannel.unreadChanged);
    expect(hooks.unread).toBe(0);
    expect(electron.trays[0]!.tooltip).toBe('Herald: no unread messages');
  });

  it('boot() follows the person signed in in the window: their count, their reads, no one once signed out', async () => {
    const port = await freePort();
    await start({ port });
    const origin = `http://127.0.0.1:${port}`;
    const { client, send } = await hostedTemplate(origin);
    // Another person, a viewer, made directly in the desktop's database.
    const passwordHash = await hashPassword('other-password');
    await (desktop!.server as HeraldServer).ctx.writeLock.run(() =>
      User.create({ username: 'other', passwordHash, role: 'viewer' }),
    );
    const other = new ConsoleClient(origin);
    await other.ok('POST', '/login', { username: 'other', password: 'other-password' });
    await new Promise((r) => setTimeout(r, 5));

    expect((await send('For both')).status).toBe(200);
    await vi.waitFor(() => expect(hooks.unread).toBe(1), { timeout: 10_000 });
    expect(electron.notifications).toHaveLength(1);

    // The other person's read-all leaves the window's person's count.
    // (Its reads event is emitted before the answer: a wrong count would already show.)
    await other.ok('POST', '/messages/read-all');
    expect(hooks.unread).toBe(1);
    // The window's person reading in a browser tab shows at once, without the page asking.
    await client.ok('POST', '/messages/read-all');
    await vi.waitFor(() => expect(hooks.unread).toBe(0));

    // Signed out in the window: nobody's count, and nobody is notified.
    electron.setCookie('herald_session', null);
    expect((await send('While signed out')).status).toBe(200);
    await vi.waitFor(async () => expect((await client.ok('GET', '/messages')).total).toBe(2));
    expect(hooks.unread).toBe(0);
    expect(electron.notifications).toHaveLength(1);

    // The other person signs in in the window: their count.
    electron.setCookie('herald_session', other.cookie.split('=')[1]!);
    await vi.waitFor(() => expect(hooks.unread).toBe(1));

    // An administrator deletes that unread message in a browser: the window's count follows at
    // once (well before the periodic re-read), without the page asking.
    const [unread] = (await other.ok('GET', '/messages?unread=true')).items;
    expect(unread.title).toBe('While signed out');
    await client.ok('DELETE', `/messages/${unread.id}`);
    await vi.waitFor(() => expect(hooks.unread).toBe(0));

    // Retention prunes an old unread message: the same, without the 15 s re-read.
    expect((await send('Old and unread')).status).toBe(200);
    await vi.waitFor(() => expect(hooks.unread).toBe(1));
    await (desktop!.server as HeraldServer).ctx.writeLock.run(() =>
      HostedMessage.update(
        { createdAt: new Date('2020-01-01T00:00:00Z') },
        { where: { title: 'Old and unread' }, silent: true },
      ),
    );
    await client.ok('PUT', '/settings', { retention: { messagesDays: 30 } });
    expect((await client.ok('POST', '/maintenance/prune')).deleted.hostedMessages).toBe(1);
    await vi.waitFor(() => expect(hooks.unread).toBe(0));
  });

  it('boot() saves do-not-disturb switched from the tray menu and shows it in the tray', async () => {
    const { store } = await start({ port: await freePort() });

    electron.trays[0]!.menu.find((item) => item.id === 'dnd')!.click!();

    expect(store.saved).toMatchObject({ doNotDisturb: true });
    expect(electron.trays[0]!.tooltip).toBe('Herald: no unread messages (do not disturb)');
    expect(electron.trays[0]!.menu.find((item) => item.id === 'dnd')!.checked).toBe(true);
  });

  it('boot() asks before using another port when the configured one is taken, and keeps the answer', async () => {
    const port = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    blockers.push(blocker);
    electron.dialogAnswers.push(0); // "Use port <suggestion>"

    const { store } = await start({ port });

    expect(electron.dialogs).toHaveLength(1);
    expect(electron.dialogs[0]!.message).toBe(`Port ${port} is already in use`);
    const chosen = Number(/Use port (\d+)/.exec(electron.dialogs[0]!.buttons[0]!)![1]);
    expect(chosen).toBeGreaterThan(port);
    expect(desktop!.server.url).toBe(`http://127.0.0.1:${chosen}`);
    expect(store.saved).toMatchObject({ port: chosen });
  });

  it('boot() listens on any port the OS has free when asked, and keeps that port', async () => {
    const port = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    blockers.push(blocker);
    electron.dialogAnswers.push(1); // "Use any free port"

    const { store } = await start({ port });

    expect(electron.dialogs[0]!.buttons[1]).toBe('Use any free port');
    const chosen = Number(new URL(desktop!.server.url).port);
    expect(chosen).not.toBe(port);
    expect(chosen).toBeGreaterThan(0);
    expect(store.saved).toMatchObject({ port: chosen });
    expect((await fetch(`http://127.0.0.1:${chosen}/healthz`)).status).toBe(200);
  });

  it('boot() starts on a port typed in the prompt, after a cancelled one asks again', async () => {
    const port = await freePort();
    const typed = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    blockers.push(blocker);
    electron.dialogAnswers.push(2, 2); // "Type a port…", twice

    const started = start({ port });
    // The server opens its database before the port is refused: seconds on a busy machine.
    await vi.waitFor(() => expect(electron.prompts).toHaveLength(1), { timeout: 30_000 });
    electron.prompts[0]!.pageSetsTitle('herald-cancel');
    await vi.waitFor(() => expect(electron.prompts).toHaveLength(2), { timeout: 30_000 });
    electron.prompts[1]!.pageSetsTitle(`herald-port:${typed}`);
    const { store } = await started;

    expect(electron.dialogs).toHaveLength(2);
    expect(electron.prompts.every((prompt) => prompt.destroyed)).toBe(true);
    expect(desktop!.server.url).toBe(`http://127.0.0.1:${typed}`);
    expect(store.saved).toMatchObject({ port: typed });
  });

  it('boot() starts nothing and resolves null when the user quits at the port dialog', async () => {
    const port = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    blockers.push(blocker);
    electron.dialogAnswers.push(4); // "Quit Herald", after the suggestion, any port, type a port, retry

    await start({ port });

    expect(desktop).toBeNull();
    expect(electron.windows).toHaveLength(0);
  });

  it('boot() answers the preload’s questions only for its own window', async () => {
    const port = await freePort();
    const { paths } = await start({ port }, { ignoredDatabaseVariables: ['HERALD_SECRET_KEY'] });
    const win = electron.windows[0]!;

    await expect(electron.ipc.invoke(win, IpcChannel.getAppVersion)).resolves.toBe('1.2.3-test');
    await expect(electron.ipc.invoke(win, IpcChannel.getServerInfo)).resolves.toEqual({
      url: `http://127.0.0.1:${port}`,
      port,
      listenOnLan: false,
      lanUrls: [],
      dataDir: paths.dataDir,
      settingsFile: path.join(paths.userDataDir, 'config.json'),
      deliveriesPaused: false,
      platform: 'linux',
      trayShown: true,
      database: { dialect: 'sqlite', location: path.join(paths.dataDir, 'herald.db') },
      ignoredDatabaseVariables: ['HERALD_SECRET_KEY'],
    });
    await expect(electron.ipc.invoke(win, IpcChannel.setDeliveriesPaused, true)).resolves.toBe(
      true,
    );
    expect(electron.trays[0]!.menu.find((i) => i.id === 'deliveries')!.label).toBe(
      'Resume deliveries',
    );

    const stranger = new electron.BrowserWindow(win.options);
    await stranger.loadURL(`http://127.0.0.1:${port}/`);
    await expect(
      electron.ipc.invoke(electron.windows[1]!, IpcChannel.getAppVersion),
    ).resolves.toBeUndefined();
  });

  it('boot() hides the window on close while minimise-to-tray is on', async () => {
    await start({ port: await freePort(), minimizeToTray: true });
    const win = electron.windows[0]!;

    expect(win.close()).toBe(false);
    expect(win.visible).toBe(false);
    electron.trays[0]!.menu.find((i) => i.id === 'open')!.click!();
    expect(win.visible).toBe(true);
  });

  it('shutdownSteps() stop the integrations, close the server and remove the tray, in order', async () => {
    const port = await freePort();
    await start({ port });

    const results = await createShutdown(desktop!.shutdownSteps()).run();
    desktop = null;

    expect(results).toEqual([
      { name: 'stop desktop integrations', outcome: 'done' },
      { name: 'close server', outcome: 'done' },
      { name: 'remove tray', outcome: 'done' },
    ]);
    await expect(fetch(`http://127.0.0.1:${port}/api/console/status`)).rejects.toThrow();
    expect(electron.trays[0]!.destroyed).toBe(true);
    expect(electron.ipc.handlers.size).toBe(0);
  });

  it('boot() guards every WebContents: navigation, new windows and webviews stay on Herald’s origin', async () => {
    const port = await freePort();
    await start({ port });
    const origin = `http://127.0.0.1:${port}`;
    const win = electron.windows[0]!;

    expect(win.navigate(`${origin}/logs`)).toBe(true);
    expect(win.navigate('https://example.com/phish')).toBe(false);
    expect(win.navigate('file:///etc/passwd')).toBe(false);
    expect(win.open('https://example.com/docs')).toEqual({ action: 'deny' });
    expect(win.open(`${origin}/other`)).toEqual({ action: 'deny' });
    await vi.waitFor(() =>
      expect(electron.openedExternal).toEqual([
        'https://example.com/phish',
        'https://example.com/docs',
        // window.open never makes a second Electron window, even for the console's own pages.
        `${origin}/other`,
      ]),
    );
    // A WebContents created later (DevTools, anything a page manages to open) is guarded too.
    new electron.BrowserWindow(win.options);
    const later = electron.windows.at(-1)!;
    expect(later.navigate('https://example.com/')).toBe(false);
    expect(later.open('javascript:alert(1)')).toEqual({ action: 'deny' });
    let webviewPrevented = false;
    later.webContents.events.emit('will-attach-webview', {
      preventDefault: () => (webviewPrevented = true),
    });
    expect(webviewPrevented).toBe(true);
  });

  it('boot() applies the session policy: permissions for Herald’s origin only, and a CSP where a response lacks one', async () => {
    const port = await freePort();
    await start({ port });
    const origin = `http://127.0.0.1:${port}`;
    const { permissionRequest, permissionCheck, headers } = electron.sessionHandlers;

    const ask = (permission: string, requestingUrl: string) =>
      new Promise<boolean>((resolve) =>
        permissionRequest!({}, permission, resolve, { requestingUrl }),
      );
    await expect(ask('clipboard-sanitized-write', `${origin}/`)).resolves.toBe(true);
    await expect(ask('media', `${origin}/`)).resolves.toBe(false);
    await expect(ask('clipboard-sanitized-write', 'https://example.com/')).resolves.toBe(false);
    expect(permissionCheck!({}, 'geolocation', origin)).toBe(false);

    const withCsp = await new Promise<Record<string, unknown>>((resolve) =>
      headers!({ url: `${origin}/x`, responseHeaders: {} }, (r) =>
        resolve(r.responseHeaders ?? {}),
      ),
    );
    expect(withCsp['Content-Security-Policy']).toEqual([
      expect.stringContaining("default-src 'none'"),
    ]);
  });

  it('boot() started at login keeps the window in the tray until it is asked for', async () => {
    await start({ port: await freePort() }, { startHidden: true });
    const win = electron.windows[0]!;
    await new Promise((resolve) => setTimeout(resolve, 10));

    expect(win.loaded).toHaveLength(1);
    expect([win.visible, win.minimized]).toEqual([false, false]);
    electron.trays[0]!.menu.find((item) => item.id === 'open')!.click!();
    expect(win.visible).toBe(true);
  });

  it('boot() started at login minimises the window where no tray shows, so the taskbar has it', async () => {
    for (const [what, options] of [
      ['no tray host', { traySupported: false }],
      ['a tray that failed', {}],
    ] as const) {
      electron = createFakeElectron(temp);
      if (what === 'a tray that failed') electron.trayError = new Error('no tray');
      await start({ port: await freePort() }, { ...options, startHidden: true });
      const win = electron.windows[0]!;
      await vi.waitFor(() => expect([what, win.minimized]).toEqual([what, true]));
      expect(win.visible).toBe(false);
      await createShutdown(desktop!.shutdownSteps()).run();
      desktop = null;
    }
  });

  it('boot() registers start at login the OS’s way when the setting changes, and reports what the OS has', async () => {
    (electron.app as { isPackaged: boolean }).isPackaged = true;
    electron.loginItems.platform = 'win32';
    const { store } = await start({ port: await freePort() }, { platform: 'win32' });
    const win = electron.windows[0]!;
    // Nothing is registered at start: Task Manager's switch is the user's to keep.
    expect(electron.loginItems.calls).toEqual([]);

    await electron.ipc.invoke(win, IpcChannel.updateSettings, { startAtLogin: true });

    await vi.waitFor(() =>
      expect(electron.loginItems.calls).toEqual([{ openAtLogin: true, args: ['--hidden'] }]),
    );
    expect(store.saved).toMatchObject({ startAtLogin: true });
    await expect(electron.ipc.invoke(win, IpcChannel.getLoginItem)).resolves.toEqual({
      supported: true,
      openAtLogin: true,
      attention: null,
    });
    electron.loginItems.runEnabled = false;
    await expect(electron.ipc.invoke(win, IpcChannel.getLoginItem)).resolves.toMatchObject({
      openAtLogin: false,
      attention: 'disabled-by-user',
    });
  });

  it('boot() on Linux writes the autostart entry and keeps it pointing at a moved AppImage', async () => {
    (electron.app as { isPackaged: boolean }).isPackaged = true;
    const entry = path.join(temp, '.config', 'autostart', 'herald.desktop');
    await start(
      { port: await freePort() },
      { env: { APPIMAGE: path.join(temp, 'Herald-1.0.AppImage') } },
    );
    await electron.ipc.invoke(electron.windows[0]!, IpcChannel.updateSettings, {
      startAtLogin: true,
    });
    await vi.waitFor(() =>
      expect(readFileSync(entry, 'utf8')).toContain(`Exec=${temp}/Herald-1.0.AppImage --hidden`),
    );
    await createShutdown(desktop!.shutdownSteps()).run();

    electron = createFakeElectron(temp);
    (electron.app as { isPackaged: boolean }).isPackaged = true;
    await start(
      { port: await freePort(), startAtLogin: true },
      { env: { APPIMAGE: path.join(temp, 'Herald-1.1.AppImage') } },
    );
    await vi.waitFor(() =>
      expect(readFileSync(entry, 'utf8')).toContain(`Exec=${temp}/Herald-1.1.AppImage --hidden`),
    );
  });

  it('boot() without a tray icon lets the close button close the window, and says no tray shows', async () => {
    electron.trayError = new Error('no tray on this desktop');
    const port = await freePort();
    await start({ port, minimizeToTray: true });
    const win = electron.windows[0]!;

    expect(electron.trays).toHaveLength(0);
    expect(await electron.ipc.invoke(win, IpcChannel.getServerInfo)).toMatchObject({
      trayShown: false,
    });
    expect(win.close()).toBe(true);
    expect(win.destroyed).toBe(true);
  });

  it('boot() reports no tray shown where no StatusNotifier host is known', async () => {
    const port = await freePort();
    await start({ port }, { traySupported: false });

    expect(await electron.ipc.invoke(electron.windows[0]!, IpcChannel.getServerInfo)).toMatchObject(
      { trayShown: false, platform: 'linux' },
    );
  });

  it('boot() lets the window close while quitting, even with close-to-tray on', async () => {
    await start({ port: await freePort(), minimizeToTray: true }, { quitting: () => true });

    expect(electron.windows[0]!.close()).toBe(true);
  });

  it('boot() asks to retry when the console fails to load, and loads it again', async () => {
    electron.loadError = Object.assign(new Error('ERR_CONNECTION_REFUSED (-102) loading …'), {
      code: 'ERR_CONNECTION_REFUSED',
      errno: -102,
    });
    electron.dialogAnswers.push(0); // "Try again"
    const port = await freePort();
    await start({ port });
    const win = electron.windows[0]!;

    await vi.waitFor(() => expect(win.loaded).toHaveLength(2));
    expect(electron.dialogs.map((d) => d.title)).toEqual(['Herald: console did not load']);
    // The one-time secret of the first URL is never shown in the dialog.
    expect(electron.dialogs[0]!.detail).not.toContain('secret');
    expect(win.loaded[1]).toBe(`http://127.0.0.1:${port}/`);
    expect(electron.quits).toBe(0);
  });

  it('boot() quits when the user gives up on a console that does not load', async () => {
    electron.loadError = Object.assign(new Error('blocked'), { code: 'ERR_BLOCKED_BY_CLIENT' });
    electron.dialogAnswers.push(1); // "Quit Herald"
    await start({ port: await freePort() });

    await vi.waitFor(() => expect(electron.quits).toBe(1));
    expect(electron.windows[0]!.loaded).toHaveLength(1);
  });

  it('boot() takes no notice of a load aborted by the next navigation', async () => {
    electron.loadError = Object.assign(new Error('ERR_ABORTED (-3)'), {
      code: 'ERR_ABORTED',
      errno: -3,
    });
    await start({ port: await freePort() });
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(electron.dialogs).toEqual([]);
    expect(electron.quits).toBe(0);
  });

  it('boot() reloads a crashed window once, then asks, and ignores a clean exit', async () => {
    await start({ port: await freePort() });
    const win = electron.windows[0]!;
    const gone = (reason: string) =>
      win.webContents.events.emit('render-process-gone', {}, { reason, exitCode: 1 });

    gone('clean-exit');
    expect(win.reloads).toBe(0);
    gone('crashed');
    expect(win.reloads).toBe(1);
    expect(electron.dialogs).toEqual([]);

    electron.dialogAnswers.push(0); // "Reload window"
    gone('oom');
    await vi.waitFor(() => expect(win.reloads).toBe(2));
    expect(electron.dialogs.map((d) => d.title)).toEqual(['Herald: window stopped']);

    electron.dialogAnswers.push(1); // "Quit Herald"
    gone('crashed');
    await vi.waitFor(() => expect(electron.quits).toBe(1));
    expect(win.reloads).toBe(2);
  });

  it('boot() sets Herald’s own application menu, without reload or DevTools once packaged', async () => {
    (electron.app as { isPackaged: boolean }).isPackaged = true;
    const { paths } = await start({ port: await freePort() });

    const menu = electron.applicationMenu!;
    expect(menuRoles(menu)).toContain('quit');
    for (const role of ['reload', 'forceReload', 'toggleDevTools', 'viewMenu'])
      expect(menuRoles(menu)).not.toContain(role);
    const file = menu.find((item) => item.label === 'File')!;
    file.submenu!.find((item) => item.id === 'log-folder')!.click!();
    await vi.waitFor(() => expect(electron.openedPaths).toEqual([paths.logsDir]));
  });

  it('boot() wires Install command-line tool: unpackaged, it looks for out/cli and says when it is missing', async () => {
    (electron.app.setPath as (name: string, value: string) => void)('home', temp);
    await start({ port: await freePort() });

    const file = electron.applicationMenu!.find((item) => item.label === 'File')!;
    file.submenu!.find((item) => item.id === 'install-cli')!.click!();
    // No out/cli beside this test's out/main: nothing is copied and no launcher is written.
    await vi.waitFor(() =>
      expect(electron.dialogs.at(-1)).toMatchObject({
        type: 'error',
        message: 'This Herald has no command-line tool to install',
        detail: expect.stringContaining(path.join(temp, 'out', 'cli', 'herald.mjs')),
      }),
    );
    expect(existsSync(path.join(temp, '.local', 'bin', 'herald'))).toBe(false);
  });

  it('boot() keeps reload and DevTools in the menu of a development run', async () => {
    await start({ port: await freePort() });

    expect(menuRoles(electron.applicationMenu!)).toEqual(
      expect.arrayContaining(['reload', 'toggleDevTools']),
    );
  });

  it('boot() opens the log folder from the tray', async () => {
    const { paths } = await start({ port: await freePort() });

    electron.trays[0]!.menu.find((item) => item.id === 'log-folder')!.click!();

    await vi.waitFor(() => expect(electron.openedPaths).toEqual([paths.logsDir]));
  });

  it('boot() gives macOS a template tray image and other systems the colour one', async () => {
    await start({ port: await freePort() }, { platform: 'darwin' });
    const mac = electron.trays[0]!.image as FakeImage;
    expect(path.basename(mac.path)).toBe('trayTemplate.png');
    expect(mac.template).toBe(true);
    await createShutdown(desktop!.shutdownSteps()).run();

    electron = createFakeElectron(temp);
    await start({ port: await freePort() }, { platform: 'linux' });
    const linux = electron.trays[0]!.image as FakeImage;
    expect(path.basename(linux.path)).toBe('tray.png');
    expect(linux.template).toBe(false);
  });

  it('boot() marks unread messages with a taskbar overlay on Windows and a badge elsewhere', async () => {
    const badges: number[] = [];
    electron.app.setBadgeCount = (count) => {
      badges.push(count ?? 0);
      return true;
    };
    const port = await freePort();
    await start({ port }, { platform: 'win32' });
    const origin = `http://127.0.0.1:${port}`;
    const { client, send } = await hostedTemplate(origin);
    const win = electron.windows[0]!;

    expect((await send('Disk full')).status).toBe(200);
    await vi.waitFor(() => expect(hooks.unread).toBe(1), { timeout: 10_000 });
    const [image, description] = win.overlays.at(-1)!;
    expect(path.basename((image as FakeImage).path)).toBe('unread-overlay.png');
    expect(description).toBe('1 unread message');

    const { items } = await client.ok('GET', '/messages');
    await client.ok('PATCH', `/messages/${items[0].id}`, { read: true });
    await electron.ipc.invoke(win, IpcChannel.unreadChanged);
    expect(win.overlays.at(-1)).toEqual([null, '']);
    // setBadgeCount does nothing on Windows; it is not what marks the taskbar there.
    expect(badges).toEqual([]);
  });

  it('boot() shows the unread count as the app badge on Linux and macOS', async () => {
    const badges: number[] = [];
    electron.app.setBadgeCount = (count) => {
      badges.push(count ?? 0);
      return true;
    };
    await start({ port: await freePort() }, { platform: 'linux' });

    await vi.waitFor(() => expect(badges).toEqual([0]));
    expect(electron.windows[0]!.overlays).toEqual([]);
  });

  it('boot() restarts an AppImage from the AppImage file, and anything else from itself', async () => {
    await start({ port: await freePort() }, { env: { APPIMAGE: '/home/u/Apps/Herald.AppImage' } });
    await electron.ipc.invoke(electron.windows[0]!, IpcChannel.restartApp);
    expect(electron.relaunches).toEqual([{ execPath: '/home/u/Apps/Herald.AppImage' }]);
    expect(electron.quits).toBe(1);
    await createShutdown(desktop!.shutdownSteps()).run();

    electron = createFakeElectron(temp);
    await start({ port: await freePort() }, { env: {} });
    await electron.ipc.invoke(electron.windows[0]!, IpcChannel.restartApp);
    expect(electron.relaunches).toEqual([undefined]);
  });

  it('boot() takes over a data-folder lock whose pid now belongs to another live program', async () => {
    const paths = derivePaths(path.join(temp, 'Herald-dev'));
    ensureDirs(paths);
    // After a crash the OS gave the old pid to something else: here, our parent process.
    writeFileSync(path.join(paths.dataDir, 'herald.lock'), `${process.ppid}\n`);

    await start({ port: await freePort() });

    expect(desktop).not.toBeNull();
    expect(readFileSync(path.join(paths.dataDir, 'herald.lock'), 'utf8').split('\n')[0]).toBe(
      String(process.pid),
    );
  });

  it('boot() passes Windows’ session-end questions to the app without refusing them', async () => {
    await start({ port: await freePort() }, { platform: 'win32' });
    const win = electron.windows[0]!;
    let refused = false;

    win.emit('query-session-end', { preventDefault: () => (refused = true) });
    win.emit('session-end', { preventDefault: () => (refused = true) });

    expect(sessionEvents).toEqual(['ending', 'end']);
    expect(refused).toBe(false);
  });

  it('releaseNow() gives the data folder back at once, so the next start needs no take-over', async () => {
    const { paths } = await start({ port: await freePort() });
    const lock = path.join(paths.dataDir, 'herald.lock');
    expect(existsSync(lock)).toBe(true);

    desktop!.releaseNow();

    expect(existsSync(lock)).toBe(false);
  });
});
