import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { DesktopSettings, ServerInfo } from '../../../main/preload/desktop-api';
import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ConsolePage } from './console-page';
import { chromiumAvailable, ensureConsoleBuilt, launchChromium, RENDERER_DIST } from './chromium';

const haveChromium = chromiumAvailable('desktop settings e2e');

/** One call the page made on the fake bridge. */
type BridgeCall = [method: string, ...args: unknown[]];

/** What the fake bridge keeps on the page's window (this file has no DOM lib). */
interface FakeBridgeGlobals {
  desktop: Record<string, (...args: unknown[]) => Promise<unknown> | void>;
  __desktopCalls: BridgeCall[];
}

/**
 * Runs in the page before any of its scripts (so `window.desktop` exists when the console starts,
 * as the preload's does): a bridge that answers like main and records every call on the window.
 */
function installFakeBridge(init: { settings: DesktopSettings; server: ServerInfo }): void {
  const page = globalThis as unknown as FakeBridgeGlobals;
  const calls: BridgeCall[] = [];
  let settings = { ...init.settings };
  const record =
    <T>(method: string, answer: (...args: unknown[]) => T) =>
    async (...args: unknown[]) => {
      calls.push([method, ...args]);
      return answer(...args);
    };
  page.__desktopCalls = calls;
  page.desktop = {
    getServerInfo: record('getServerInfo', () => ({ ...init.server })),
    getAppVersion: record('getAppVersion', () => '0.0.0-e2e'),
    openExternal: record('openExternal', () => true),
    revealDataFolder: record('revealDataFolder', () => undefined),
    getSettings: record('getSettings', () => ({ ...settings })),
    updateSettings: record('updateSettings', (patch) => {
      const next = { ...settings, ...(patch as Partial<DesktopSettings>) };
      const restartRequired =
        next.port !== settings.port || next.listenOnLan !== settings.listenOnLan;
      settings = next;
      return { settings: { ...next }, restartRequired, applied: true };
    }),
    getLoginItem: record('getLoginItem', () => ({
      supported: true,
      openAtLogin: settings.startAtLogin,
      attention: null,
    })),
    setDeliveriesPaused: record('setDeliveriesPaused', (paused) => paused),
    restartApp: record('restartApp', () => undefined),
    unreadChanged: record('unreadChanged', () => undefined),
    onOpenMessage: (listener) => void calls.push(['onOpenMessage', typeof listener]),
  };
}

/** The console's Settings page in Chromium, with and without the desktop window's bridge. */
describe.skipIf(!haveChromium)(
  'desktop settings in Chromium',
  // Each step builds on the one before, so steps keep their order when CI shuffles the suite.
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let browser: Browser;
    const contexts: BrowserContext[] = [];
    const pageErrors: string[] = [];

    async function openSettings(setup?: (page: Page) => Promise<unknown>): Promise<ConsolePage> {
      const context = await browser.newContext({ locale: 'en-US' });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      await setup?.(page);
      const ui = new ConsolePage(page, herald.url);
      await ui.goto('/');
      await ui.signIn(ADMIN.username, ADMIN.password);
      await ui.nav('settings');
      // The server's settings have loaded: the page's own cards are there.
      await ui.byTestId('settings-send-api').waitFor();
      return ui;
    }

    const calls = (ui: ConsolePage) =>
      ui.page.evaluate(() => (globalThis as unknown as FakeBridgeGlobals).__desktopCalls);
    const callsTo = async (ui: ConsolePage, method: string) =>
      (await calls(ui)).filter(([name]) => name === method).map(([, ...args]) => args);

    beforeAll(async () => {
      ensureConsoleBuilt();
      herald = await startTestHerald({ rendererDir: RENDERER_DIST });
      browser = await launchChromium();
    });

    afterAll(async () => {
      for (const context of contexts) await context.close();
      await browser?.close();
      await herald?.close(true);
    });

    it('a plain browser shows no Desktop section', async () => {
      const ui = await openSettings();

      expect(await ui.byTestId('settings-desktop').count()).toBe(0);
      expect(await ui.page.getByText('Close to tray').count()).toBe(0);
      expect(pageErrors).toEqual([]);
    });

    it('the desktop window shows the section and saves a change through the bridge', async () => {
      const port = Number(new URL(herald.url).port);
      const ui = await openSettings((page) =>
        page.addInitScript(installFakeBridge, {
          settings: {
            port,
            listenOnLan: false,
            startAtLogin: false,
            minimizeToTray: true,
            notifications: true,
            doNotDisturb: false,
            databaseFromEnvironment: false,
          },
          server: {
            url: herald.url,
            port,
            listenOnLan: false,
            lanUrls: [],
            dataDir: herald.dataDir,
            deliveriesPaused: false,
            platform: 'linux',
            trayShown: false,
            database: { dialect: 'sqlite' as const, location: `${herald.dataDir}/herald.db` },
            ignoredDatabaseVariables: [],
            settingsFile: `${herald.dataDir}/../config.json`,
          },
        }),
      );

      const section = ui.byTestId('settings-desktop');
      await section.waitFor();
      expect(await ui.byTestId('desktop-url').textContent()).toBe(herald.url);
      expect(await ui.byTestId('desktop-data-dir').textContent()).toBe(herald.dataDir);
      expect(await ui.byTestId('desktop-port').locator('input').inputValue()).toBe(String(port));
      // What the system has for start at login, under its switch; no tray here, so the
      // warning sits next to "Close to tray".
      expect(await ui.byTestId('desktop-start-at-login').getAttribute('class')).not.toContain(
        'is-disabled',
      );
      expect(await ui.byTestId('desktop-login-item-state').textContent()).toBe(
        'The system will not open Herald at login.',
      );
      await ui.byTestId('desktop-no-tray').waitFor();

      // The switch is a draft until Save, as on every settings card.
      await ui.byTestId('desktop-minimize-to-tray').click();
      expect(await callsTo(ui, 'updateSettings')).toEqual([]);
      await ui.byTestId('desktop-save').click();
      await expect.poll(() => callsTo(ui, 'updateSettings')).toEqual([[{ minimizeToTray: false }]]);
      expect(await ui.byTestId('desktop-minimize-to-tray').getAttribute('class')).not.toContain(
        'is-checked',
      );
      expect(await ui.byTestId('desktop-restart-notice').count()).toBe(0);

      // A new port is saved on Enter (which submits the card's form) and applies after a restart.
      await ui
        .byTestId('desktop-port')
        .locator('input')
        .fill(String(port + 1));
      await ui.byTestId('desktop-port').locator('input').press('Enter');
      await ui.byTestId('desktop-restart-notice').waitFor();
      expect((await callsTo(ui, 'updateSettings')).at(-1)).toEqual([{ port: port + 1 }]);
      expect(await ui.byTestId('desktop-restart-notice').textContent()).toContain(
        `Port: ${port} now, ${port + 1} after the restart`,
      );

      await ui.byTestId('desktop-restart').click();
      await expect.poll(() => callsTo(ui, 'restartApp')).toEqual([[]]);
      await ui.byTestId('desktop-reveal-data-folder').click();
      await expect.poll(() => callsTo(ui, 'revealDataFolder')).toEqual([[]]);
      expect(pageErrors).toEqual([]);
    });
  },
);
