import type { VueWrapper } from '@vue/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type {
  DesktopApi,
  DesktopSettings,
  ServerInfo,
  SettingsUpdateResult,
} from '../../main/preload/desktop-api';
import DesktopSettingsCard from '../../renderer/src/components/settings/DesktopSettingsCard.vue';
import {
  bridgeErrorText,
  loginItemText,
  pendingRestart,
  type LoginItemState,
} from '../../renderer/src/lib/desktop-settings';
import SettingsPage from '../../renderer/src/pages/SettingsPage.vue';
import { installFakeApi, ok } from './helpers/fake-api';
import { createContext, mountWithApp, settle } from './helpers/mount';

const storedSettings = (): DesktopSettings => ({
  port: 8765,
  listenOnLan: false,
  startAtLogin: true,
  minimizeToTray: false,
  notifications: true,
  doNotDisturb: false,
  databaseFromEnvironment: false,
});

const runningServer = (): ServerInfo => ({
  url: 'http://127.0.0.1:8765',
  port: 8765,
  listenOnLan: false,
  lanUrls: [],
  dataDir: '/home/ada/.config/Herald/data',
  deliveriesPaused: false,
  platform: 'darwin',
  trayShown: true,
  database: { dialect: 'sqlite', location: '/home/ada/.config/Herald/data/herald.db' },
  ignoredDatabaseVariables: [],
  settingsFile: '/home/ada/.config/Herald/config.json',
});

/**
 * The preload's bridge as the page sees it, recording what the page asks of main. By default
 * updateSettings() behaves as main does: it merges the patch and says whether a restart is due.
 */
function installFakeDesktop(
  options: {
    settings?: Partial<DesktopSettings>;
    server?: Partial<ServerInfo>;
    update?: (patch: Partial<DesktopSettings>) => Promise<SettingsUpdateResult>;
    loginItem?: LoginItemState;
  } = {},
) {
  let settings = { ...storedSettings(), ...options.settings };
  const server = { ...runningServer(), ...options.server };
  const updateSettings = vi.fn(
    options.update ??
      (async (patch: Partial<DesktopSettings>): Promise<SettingsUpdateResult> => {
        const next = { ...settings, ...patch };
        const restartRequired =
          next.port !== settings.port || next.listenOnLan !== settings.listenOnLan;
        settings = next;
        return { settings: { ...next }, restartRequired, applied: true };
      }),
  );
  const restartApp = vi.fn(async () => undefined);
  const revealDataFolder = vi.fn(async () => undefined);
  const desktop = {
    getSettings: vi.fn(async () => ({ ...settings })),
    getServerInfo: vi.fn(async () => ({ ...server })),
    getLoginItem: vi.fn(async () => ({
      ...(options.loginItem ?? {
        supported: true,
        openAtLogin: settings.startAtLogin,
        attention: null,
      }),
    })),
    updateSettings,
    restartApp,
    revealDataFolder,
  } as Partial<DesktopApi> as DesktopApi;
  window.desktop = desktop;
  return { desktop, updateSettings, restartApp, revealDataFolder };
}

async function mountCard() {
  const mounted = mountWithApp(DesktopSettingsCard);
  await settle();
  return mounted.wrapper;
}

/** Presses the card's Save: its controls are a draft until then. */
async function save(wrapper: VueWrapper) {
  await wrapper.get('form').trigger('submit');
  await settle();
}

const checked = (wrapper: VueWrapper, id: string) =>
  wrapper.get(`[data-testid="${id}"]`).classes().includes('is-checked');
const disabled = (wrapper: VueWrapper, id: string) =>
  wrapper.get(`[data-testid="${id}"]`).classes().includes('is-disabled');

afterEach(() => {
  delete window.desktop;
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('DesktopSettingsCard', () => {
  it('DesktopSettingsCard shows the stored settings and where Herald listens', async () => {
    installFakeDesktop({
      server: {
        listenOnLan: true,
        lanUrls: ['http://192.168.1.20:8765', 'http://10.0.0.5:8765'],
      },
      settings: { listenOnLan: true },
    });

    const wrapper = await mountCard();

    expect(wrapper.get<HTMLInputElement>('[data-testid="desktop-port"] input').element.value).toBe(
      '8765',
    );
    expect(checked(wrapper, 'desktop-listen-on-lan')).toBe(true);
    expect(checked(wrapper, 'desktop-start-at-login')).toBe(true);
    expect(checked(wrapper, 'desktop-minimize-to-tray')).toBe(false);
    expect(checked(wrapper, 'desktop-notifications')).toBe(true);
    expect(checked(wrapper, 'desktop-do-not-disturb')).toBe(false);
    expect(wrapper.get('[data-testid="desktop-url"]').text()).toBe('http://127.0.0.1:8765');
    expect(wrapper.get('[data-testid="desktop-lan-urls"]').text()).toContain(
      'http://192.168.1.20:8765',
    );
    expect(wrapper.get('[data-testid="desktop-lan-urls"]').text()).toContain(
      'http://10.0.0.5:8765',
    );
    expect(wrapper.get('[data-testid="desktop-data-dir"]').text()).toBe(
      '/home/ada/.config/Herald/data',
    );
    expect(wrapper.text()).toContain('Closing the window keeps Herald running in the tray');
    expect(wrapper.find('[data-testid="desktop-restart-notice"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="desktop-no-tray"]').exists()).toBe(false);
    expect(disabled(wrapper, 'desktop-start-at-login')).toBe(false);
    wrapper.unmount();
  });

  it('DesktopSettingsCard hides the LAN addresses while the server listens on loopback only', async () => {
    installFakeDesktop();

    const wrapper = await mountCard();

    expect(wrapper.find('[data-testid="desktop-lan-urls"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it('DesktopSettingsCard saves on Save, with exactly the fields that changed', async () => {
    const { updateSettings } = installFakeDesktop();
    const wrapper = await mountCard();

    await wrapper.get('[data-testid="desktop-do-not-disturb"]').trigger('click');
    await settle();
    expect(updateSettings).not.toHaveBeenCalled();
    await save(wrapper);

    expect(updateSettings).toHaveBeenCalledTimes(1);
    expect(updateSettings).toHaveBeenCalledWith({ doNotDisturb: true });
    expect(checked(wrapper, 'desktop-do-not-disturb')).toBe(true);
    expect(wrapper.find('[data-testid="desktop-restart-notice"]').exists()).toBe(false);

    await wrapper.get('[data-testid="desktop-minimize-to-tray"]').trigger('click');
    await wrapper.get('[data-testid="desktop-notifications"]').trigger('click');
    await save(wrapper);

    expect(updateSettings).toHaveBeenLastCalledWith({ minimizeToTray: true, notifications: false });
    expect(checked(wrapper, 'desktop-minimize-to-tray')).toBe(true);
    wrapper.unmount();
  });

  it('DesktopSettingsCard puts the LAN switch back when the user declines main’s warning', async () => {
    const { updateSettings } = installFakeDesktop({
      update: async () => ({ settings: storedSettings(), restartRequired: false, applied: false }),
    });
    const wrapper = await mountCard();

    await wrapper.get('[data-testid="desktop-listen-on-lan"]').trigger('click');
    await save(wrapper);

    expect(updateSettings).toHaveBeenCalledWith({ listenOnLan: true });
    expect(checked(wrapper, 'desktop-listen-on-lan')).toBe(false);
    expect(wrapper.find('[data-testid="desktop-restart-notice"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="desktop-error"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it('DesktopSettingsCard asks for a restart after a port change and restarts on request', async () => {
    const { updateSettings, restartApp } = installFakeDesktop();
    const wrapper = await mountCard();
    expect(wrapper.find('[data-testid="desktop-restart-notice"]').exists()).toBe(false);

    const port = wrapper.get('[data-testid="desktop-port"] input');
    await port.setValue('9001');
    await port.trigger('change');
    await save(wrapper);

    expect(updateSettings).toHaveBeenCalledTimes(1);
    expect(updateSettings).toHaveBeenCalledWith({ port: 9001 });
    const notice = wrapper.get('[data-testid="desktop-restart-notice"]');
    expect(notice.text()).toContain('Restart Herald to apply');
    expect(notice.text()).toContain('Port: 8765 now, 9001 after the restart');
    expect(restartApp).not.toHaveBeenCalled();

    await wrapper.get('[data-testid="desktop-restart"]').trigger('click');
    await settle();

    expect(restartApp).toHaveBeenCalledTimes(1);
    wrapper.unmount();
  });

  it('DesktopSettingsCard asks for a restart after turning the LAN on', async () => {
    installFakeDesktop();
    const wrapper = await mountCard();

    await wrapper.get('[data-testid="desktop-listen-on-lan"]').trigger('click');
    await save(wrapper);

    expect(checked(wrapper, 'desktop-listen-on-lan')).toBe(true);
    expect(wrapper.get('[data-testid="desktop-restart-notice"]').text()).toContain(
      'Access from other computers: off now, on after the restart',
    );
    wrapper.unmount();
  });

  it('DesktopSettingsCard shows a restart saved earlier as still pending on load', async () => {
    const { restartApp } = installFakeDesktop({ settings: { port: 9000 } });

    const wrapper = await mountCard();

    const notice = wrapper.get('[data-testid="desktop-restart-notice"]');
    expect(notice.text()).toContain('Port: 8765 now, 9000 after the restart');
    expect(notice.text()).not.toContain('Access from other computers');
    await wrapper.get('[data-testid="desktop-restart"]').trigger('click');
    expect(restartApp).toHaveBeenCalledTimes(1);
    wrapper.unmount();
  });

  it('DesktopSettingsCard shows main’s refusal and keeps the draft to save again', async () => {
    installFakeDesktop({
      update: async () => {
        throw new Error(
          "Error invoking remote method 'desktop:update-settings': Error: config.json is read-only",
        );
      },
    });
    const wrapper = await mountCard();

    await wrapper.get('[data-testid="desktop-notifications"]').trigger('click');
    await save(wrapper);

    expect(wrapper.get('[data-testid="desktop-error"]').text()).toBe(
      'Not saved: config.json is read-only',
    );
    expect(checked(wrapper, 'desktop-notifications')).toBe(false);

    const port = wrapper.get<HTMLInputElement>('[data-testid="desktop-port"] input');
    await port.setValue('9002');
    await port.trigger('change');
    await save(wrapper);

    expect(port.element.value).toBe('9002');
    wrapper.unmount();
  });

  it('DesktopSettingsCard refuses a port outside 1024–65535 without asking main', async () => {
    const { updateSettings } = installFakeDesktop();
    const wrapper = await mountCard();

    const port = wrapper.get<HTMLInputElement>('[data-testid="desktop-port"] input');
    await port.setValue('80');
    await port.trigger('change');
    await save(wrapper);

    expect(updateSettings).not.toHaveBeenCalled();
    expect(wrapper.get('[data-testid="desktop-error"]').text()).toContain('1024 to 65535');
    expect(port.element.value).toBe('80');
    wrapper.unmount();
  });

  it('DesktopSettingsCard disables "Open at login" in a development run, which registers nothing', async () => {
    installFakeDesktop({ loginItem: { supported: false, openAtLogin: false, attention: null } });

    const wrapper = await mountCard();

    expect(disabled(wrapper, 'desktop-start-at-login')).toBe(true);
    expect(wrapper.get('[data-testid="desktop-start-at-login-help"]').text()).toContain(
      'Only the installed Herald can open at login',
    );
    wrapper.unmount();
  });

  it('DesktopSettingsCard shows what the OS has for start at login, and when it needs the user', async () => {
    installFakeDesktop({
      server: { platform: 'linux' },
      loginItem: { supported: true, openAtLogin: true, attention: null },
    });
    const linux = await mountCard();
    expect(disabled(linux, 'desktop-start-at-login')).toBe(false);
    expect(linux.get('[data-testid="desktop-login-item-state"]').text()).toBe(
      'The system will open Herald at login.',
    );
    linux.unmount();

    installFakeDesktop({
      loginItem: { supported: true, openAtLogin: false, attention: 'requires-approval' },
    });
    const mac = await mountCard();
    const note = mac.get('[data-testid="desktop-login-item-state"]');
    expect(note.text()).toContain('System Settings → General → Login Items');
    expect(note.classes()).toContain('warning');
    mac.unmount();
  });

  it('DesktopSettingsCard reads the OS’s answer again after switching start at login', async () => {
    let registered = false;
    const { desktop } = installFakeDesktop({ settings: { startAtLogin: false } });
    desktop.getLoginItem = vi.fn(async () => ({
      supported: true,
      openAtLogin: registered,
      attention: null,
    }));
    const wrapper = await mountCard();
    expect(wrapper.get('[data-testid="desktop-login-item-state"]').text()).toContain('will not');

    registered = true;
    await wrapper.get('[data-testid="desktop-start-at-login"]').trigger('click');
    await save(wrapper);

    expect(desktop.getLoginItem).toHaveBeenCalledTimes(2);
    expect(wrapper.get('[data-testid="desktop-login-item-state"]').text()).toBe(
      'The system will open Herald at login.',
    );
    wrapper.unmount();
  });

  it('DesktopSettingsCard warns next to "Close to tray" when no tray is shown', async () => {
    installFakeDesktop({ server: { platform: 'linux', trayShown: false } });

    const wrapper = await mountCard();

    expect(wrapper.get('[data-testid="desktop-no-tray"]').text()).toContain(
      'No tray icon is shown',
    );
    wrapper.unmount();
  });

  it('DesktopSettingsCard shows where the database is, and the variables the app ignored', async () => {
    installFakeDesktop({
      server: { ignoredDatabaseVariables: ['HERALD_DATABASE_URL', 'HERALD_SECRET_KEY'] },
    });

    const wrapper = await mountCard();

    expect(wrapper.get('[data-testid="desktop-database"]').text()).toBe(
      'SQLite file /home/ada/.config/Herald/data/herald.db',
    );
    const ignored = wrapper.get('[data-testid="desktop-ignored-variables"]').text();
    expect(ignored).toContain('HERALD_DATABASE_URL, HERALD_SECRET_KEY');
    expect(ignored).toContain(
      '"databaseFromEnvironment": true in /home/ada/.config/Herald/config.json',
    );
    wrapper.unmount();

    installFakeDesktop({
      server: {
        database: { dialect: 'postgres', location: 'postgres://herald:***@db.example/herald' },
      },
    });
    const team = await mountCard();
    expect(team.get('[data-testid="desktop-database"]').text()).toBe(
      'PostgreSQL postgres://herald:***@db.example/herald',
    );
    expect(team.find('[data-testid="desktop-ignored-variables"]').exists()).toBe(false);
    team.unmount();
  });

  it('DesktopSettingsCard reveals the data folder through the bridge', async () => {
    const { revealDataFolder } = installFakeDesktop();
    const wrapper = await mountCard();

    await wrapper.get('[data-testid="desktop-reveal-data-folder"]').trigger('click');

    expect(revealDataFolder).toHaveBeenCalledTimes(1);
    wrapper.unmount();
  });

  it('DesktopSettingsCard explains each setting in Chinese too', async () => {
    installFakeDesktop({
      server: { platform: 'darwin' },
      loginItem: { supported: true, openAtLogin: false, attention: 'requires-approval' },
    });
    const { wrapper } = mountWithApp(DesktopSettingsCard, {}, createContext('zh-CN'));
    await settle();

    expect(wrapper.text()).toContain('关闭到托盘');
    expect(wrapper.get('[data-testid="desktop-start-at-login-help"]').text()).toContain(
      '在托盘中启动',
    );
    expect(wrapper.get('[data-testid="desktop-login-item-state"]').text()).toContain(
      '系统设置 → 通用 → 登录项',
    );
    wrapper.unmount();
  });
});

describe('SettingsPage and the desktop section', () => {
  const serverSettings = {
    allowTaskId: false,
    retry: { maxAttempts: 6, baseDelayMs: 60_000, maxDelayMs: 960_000, jitter: 0.2 },
    v1WaitMs: 15_000,
    rateLimitPerMinute: 0,
    publicBaseUrl: '',
    showRemoteImages: false,
    requireTwoFactor: false,
    sendApi: { httpStatus: 'code' },
    about: { version: '1.0.0', dataDir: '/data', listen: 'http://127.0.0.1:8765' },
  };

  it('SettingsPage has no desktop section in a browser (no window.desktop)', async () => {
    installFakeApi({ 'GET /settings': () => ok(serverSettings) });

    const { wrapper } = mountWithApp(SettingsPage);
    await settle();

    expect(wrapper.find('[data-testid="page-settings"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="settings-send-api"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="settings-desktop"]').exists()).toBe(false);
    expect(wrapper.text()).not.toContain('Close to tray');
    wrapper.unmount();
  });

  it('SettingsPage shows the desktop section in the desktop window', async () => {
    installFakeApi({ 'GET /settings': () => ok(serverSettings) });
    installFakeDesktop();

    const { wrapper } = mountWithApp(SettingsPage);
    await settle();

    expect(wrapper.get('[data-testid="settings-desktop"]').text()).toContain('Close to tray');
    wrapper.unmount();
  });
});

describe('desktop settings helpers', () => {
  it('pendingRestart() lists the saved port and LAN setting the server does not run with', () => {
    const running = { port: 8765, listenOnLan: false };
    expect(pendingRestart({ port: 8765, listenOnLan: false }, running)).toEqual([]);
    expect(pendingRestart({ port: 9000, listenOnLan: false }, running)).toEqual(['port']);
    expect(pendingRestart({ port: 9000, listenOnLan: true }, running)).toEqual([
      'port',
      'listenOnLan',
    ]);
  });

  it('loginItemText() words each answer of the OS, warning where the user must act', () => {
    const state = (over: Partial<LoginItemState>): LoginItemState => ({
      supported: true,
      openAtLogin: false,
      attention: null,
      ...over,
    });
    expect(loginItemText(state({ supported: false }))).toEqual({
      key: 'desktop.loginItemUnsupported',
      warning: false,
    });
    expect(loginItemText(state({ openAtLogin: true })).key).toBe('desktop.loginItemOn');
    expect(loginItemText(state({})).key).toBe('desktop.loginItemOff');
    expect(loginItemText(state({ attention: 'requires-approval' }))).toEqual({
      key: 'desktop.loginItemNeedsApproval',
      warning: true,
    });
    expect(loginItemText(state({ attention: 'disabled-by-user', openAtLogin: false }))).toEqual({
      key: 'desktop.loginItemDisabledByUser',
      warning: true,
    });
  });

  it('bridgeErrorText() drops the prefix Electron puts on a rejected invoke', () => {
    expect(
      bridgeErrorText(
        new Error(
          "Error invoking remote method 'desktop:update-settings': IpcArgumentError: invalid arguments",
        ),
      ),
    ).toBe('invalid arguments');
    expect(bridgeErrorText(new Error('plain'))).toBe('plain');
    expect(bridgeErrorText('text')).toBe('text');
  });
});
