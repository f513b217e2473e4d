import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { boot, type Desktop } from '../../../main/boot';
import { IpcChannel, MainToRenderer } from '../../../main/ipc/channels';
import { derivePaths, ensureDirs } from '../../../main/paths';
import { createDesktopSettings, type SettingsStoreLike } from '../../../main/settings';
import { createShutdown } from '../../../main/shutdown';
import { installTestHooks, type TestHooks } from '../../../main/test-hooks';
import { startServer } from '../../../server/index';
import { ConsoleClient } from '../../helpers/herald';
import { createFakeElectron, type FakeElectron } from '../../mocks/electron';

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

  async function start(settings: Record<string, unknown>) {
    const paths = derivePaths(path.join(temp, 'Herald-dev'));
    ensureDirs(paths);
    const store = memoryStore(settings);
    desktop = await boot({
      electron,
      paths,
      settings: createDesktopSettings(store),
      startServer,
      mainDir: path.join(temp, 'out', 'main'),
      version: '1.2.3-test',
      isQuitting: () => false,
      hooks,
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

    const first = await fetch(loginUrl, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
    const client = new ConsoleClient(`http://127.0.0.1:${port}`);
    client.cookie = cookie;
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

  /** Signs in, creates a hosted channel and a template on it, and returns a V2 sender. */
  async function hostedTemplate(origin: string) {
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

  it('boot() starts nothing and resolves null when the user quits at the port dialog', async () => {
    const port = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    blockers.push(blocker);
    electron.dialogAnswers.push(2); // "Quit Herald"

    await start({ port });

    expect(desktop).toBeNull();
    expect(electron.windows).toHaveLength(0);
  });

  it('boot() answers the preload’s questions only for its own window', async () => {
    const port = await freePort();
    const { paths } = await start({ port });
    const win = electron.windows[0]!;

    await expect(electron.ipc.invoke(win, IpcChannel.getAppVersion)).resolves.toBe('1.2.3-test');
    await expect(electron.ipc.invoke(win, IpcChannel.getServerInfo)).resolves.toEqual({
      url: `http://127.0.0.1:${port}`,
      port,
      listenOnLan: false,
      lanUrls: [],
      dataDir: paths.dataDir,
      deliveriesPaused: false,
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
});
