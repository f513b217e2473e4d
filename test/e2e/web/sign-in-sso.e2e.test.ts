import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { SignInSettings } from '../../../contract';
import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { startOidcProvider, type OidcTestProvider } from '../../helpers/oidc-test-provider';
import { ConsolePage } from './console-page';
import {
  chromiumAvailable,
  ensureConsoleBuilt,
  launchChromium,
  RENDERER_DIST,
  ROOT,
} from './chromium';

const haveChromium = chromiumAvailable('sign-in SSO e2e');
const SHOTS = join(ROOT, 'test-results/screenshots');
const SECRET = 'herald-e2e-client-secret';

/** The page's globals read here (this project's TypeScript has no DOM library). */
interface PageGlobals {
  navigator: { serviceWorker: { ready: Promise<unknown> } };
  caches: {
    open(name: string): Promise<{
      put(path: string, answer: Response): Promise<void>;
      match(path: string): Promise<unknown>;
    }>;
  };
}
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/**
 * The console's side of issue 44 in Chromium, in English and Chinese, at a desktop and a phone
 * width: Settings → Sign-in configures a real OpenID Connect provider (oidc-provider on
 * loopback), the sign-in page then offers its button, a refused and an accepted sign-in go
 * through the provider's own page and back, and sign-out ends the provider's session.
 */
describe.skipIf(!haveChromium)(
  'sign-in with single sign-on in Chromium',
  // Each step builds on the one before (the settings saved, the account made).
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let provider: OidcTestProvider;
    let browser: Browser;
    const contexts: BrowserContext[] = [];
    const pageErrors: string[] = [];

    async function open(locale: 'en-US' | 'zh-CN', viewport = DESKTOP): Promise<ConsolePage> {
      const phone = viewport.width < 768;
      const context = await browser.newContext({
        locale,
        viewport,
        isMobile: phone,
        hasTouch: phone,
      });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      return new ConsolePage(page, herald.url);
    }

    /** Signs in with the password and opens Settings, where the Sign-in card has loaded. */
    async function openSignInCard(ui: ConsolePage): Promise<void> {
      await ui.goto('/sign-in?redirect=/settings');
      await ui.byTestId('login-form').waitFor();
      await ui.byTestId('login-username').fill(ADMIN.username);
      await ui.byTestId('login-password').fill(ADMIN.password);
      await ui.byTestId('login-submit').click();
      await ui.byTestId('page-settings').waitFor();
      await ui.byTestId('sign-in-settings-save').waitFor();
    }

    const stored = async () =>
      (await herald.console.ok('GET', '/settings/sign-in')) as SignInSettings;

    async function shot(ui: ConsolePage, name: string): Promise<void> {
      await ui.settled();
      await ui.page.screenshot({ path: join(SHOTS, `sign-in-sso-${name}.png`), fullPage: true });
    }

    beforeAll(async () => {
      ensureConsoleBuilt();
      mkdirSync(SHOTS, { recursive: true });
      provider = await startOidcProvider();
      // The test provider is on plain http:// (a home lab's case).
      herald = await startTestHerald({
        rendererDir: RENDERER_DIST,
        env: { HERALD_OIDC_ALLOW_HTTP: '1' },
      });
      provider.register([{ clientId: 'herald', clientSecret: SECRET, heraldUrl: herald.url }]);
      provider.people.set('sub-ann', { preferred_username: 'ann', groups: ['herald-editors'] });
      browser = await launchChromium();
    });

    afterAll(async () => {
      for (const context of contexts) await context.close();
      await browser?.close();
      await herald?.close(true);
      await provider?.close();
    });

    it('en, 1440 px: Settings → Sign-in sets up the provider and saves', async () => {
      const ui = await open('en-US');
      await openSignInCard(ui);
      const card = ui.byTestId('settings-sign-in');
      expect(await ui.byTestId('sign-in-redirect-uri').inputValue()).toBe(
        `${herald.url}/api/console/sso/oidc/callback`,
      );
      expect(await ui.byTestId('sign-in-secret-state').textContent()).toBe('No secret is set.');
      expect(await ui.byTestId('sign-in-proxy-off').textContent()).toContain(
        'HERALD_AUTH_PROXY_HEADER',
      );

      await ui.byTestId('sign-in-issuer').fill(provider.issuer);
      await ui.byTestId('sign-in-clientId').fill('herald');
      await ui.byTestId('sign-in-clientSecret').fill(SECRET);
      // A tag input: type a group, and Enter makes it a tag once the select offers it.
      const editors = ui.byTestId('sign-in-editorGroups');
      await editors.click();
      await ui.page.keyboard.type('herald-editors');
      await ui.page
        .locator('.el-select-dropdown__item:visible', { hasText: 'herald-editors' })
        .waitFor();
      await ui.page.keyboard.press('Enter');
      await ui
        .byTestId('sign-in-editorGroups')
        .locator('.el-tag', { hasText: 'herald-editors' })
        .waitFor();
      await ui.byTestId('sign-in-buttonLabel').fill('Sign in with Test ID');
      await ui.byTestId('sign-in-settings-save').click();
      await ui.page.locator('.el-message--success', { hasText: 'Saved' }).waitFor();

      expect(await ui.byTestId('sign-in-secret-state').textContent()).toContain('A secret is set');
      expect(await ui.byTestId('sign-in-clientSecret').inputValue()).toBe('');
      expect(await card.locator('.el-form-item__error').count()).toBe(0);
      expect(await stored()).toMatchObject({
        issuer: provider.issuer,
        clientId: 'herald',
        clientSecretSet: true,
        editorGroups: ['herald-editors'],
        buttonLabel: 'Sign in with Test ID',
        allowHttp: true,
      });
      await card.scrollIntoViewIfNeeded();
      await shot(ui, 'settings-en-1440');
    });

    it('zh-CN, 390 px: the card saves a change in Chinese, and a refused field shows under it', async () => {
      const ui = await open('zh-CN', PHONE);
      await openSignInCard(ui);
      // A bad issuer: the server's refusal sits under that field, and nothing is stored.
      await ui.byTestId('sign-in-issuer').fill('not an address');
      await ui.byTestId('sign-in-settings-save').click();
      const issuerError = ui.byTestId('sign-in-field-issuer').locator('.el-form-item__error');
      await issuerError.waitFor();
      expect(await issuerError.textContent()).toContain('必须是 https:// 地址');
      expect((await stored()).issuer).toBe(provider.issuer);

      await ui.byTestId('sign-in-issuer').fill(provider.issuer);
      // Default label (使用单点登录), and no accounts made by a sign-in.
      await ui.byTestId('sign-in-buttonLabel').fill('');
      await ui.byTestId('sign-in-autoCreate').click();
      await ui.byTestId('sign-in-settings-save').click();
      await ui.page.locator('.el-message--success', { hasText: '已保存' }).waitFor();
      await issuerError.waitFor({ state: 'detached' });
      expect(await stored()).toMatchObject({ buttonLabel: '', autoCreate: false });
      expect(await ui.byTestId('settings-sign-in').locator('.el-card__header').textContent()).toBe(
        '登录方式',
      );
      await ui.byTestId('settings-sign-in').scrollIntoViewIfNeeded();
      await shot(ui, 'settings-zh-390');
    });

    it('zh-CN, 390 px: the sign-in page offers the provider, and a person without an account is told why', async () => {
      const ui = await open('zh-CN', PHONE);
      await ui.goto('/logs');
      const button = ui.byTestId('sso-sign-in');
      await button.waitFor();
      expect((await button.textContent())?.trim()).toBe('使用单点登录');
      expect(await button.getAttribute('href')).toBe(
        `/api/console/sso/oidc/login?next=${encodeURIComponent('/logs')}`,
      );
      // Password sign-in is still on: the form is under the button.
      await ui.byTestId('login-form').waitFor();
      await shot(ui, 'page-zh-390');

      await button.click();
      await ui.page.locator('input[name="login"]').fill('sub-ann');
      await ui.page.locator('input[name="password"]').fill('any');
      await ui.page.locator('button[type="submit"]').click();
      const refusal = ui.byTestId('sso-error');
      await refusal.waitFor();
      expect(new URL(ui.page.url()).pathname + new URL(ui.page.url()).search).toBe(
        '/sign-in?error=sso-no-account',
      );
      expect(await refusal.textContent()).toContain('Herald 里没有你的账户');
      expect(await refusal.textContent()).toContain('请联系管理员邀请你');
      await shot(ui, 'refused-zh-390');
    });

    it('en, 1440 px: with accounts made at first sign-in, the provider signs a person in and sign-out ends its session', async () => {
      await herald.console.ok('PUT', '/settings/sign-in', {
        autoCreate: true,
        buttonLabel: 'Sign in with Test ID',
      });
      const ui = await open('en-US');
      await ui.goto('/sign-in?error=sso-no-account');
      expect(await ui.byTestId('sso-error').textContent()).toContain(
        'Ask an administrator to invite you.',
      );
      await ui.goto('/logs');
      const button = ui.byTestId('sso-sign-in');
      await button.waitFor();
      expect((await button.textContent())?.trim()).toBe('Sign in with Test ID');
      await shot(ui, 'page-en-1440');
      // The last person's cached answers, as the service worker keeps them for reading offline.
      const stale = '/api/console/messages/424242';
      await ui.page.evaluate(async (path) => {
        const page = globalThis as unknown as PageGlobals;
        await page.navigator.serviceWorker.ready;
        const cache = await page.caches.open('herald-api');
        await cache.put(path, new Response('{"code":200,"msg":"success","data":{}}'));
      }, stale);

      await button.click();
      await ui.page.locator('input[name="login"]').fill('sub-ann');
      await ui.page.locator('input[name="password"]').fill('any');
      await ui.page.locator('button[type="submit"]').click();
      // Back in Herald, on the page asked for, as the account the provider's groups made.
      await ui.byTestId('page-logs').waitFor();
      expect(await ui.byTestId('current-user').textContent()).toContain('ann');
      expect(await ui.byTestId('current-role').textContent()).toBe('Editor');
      // Signing in through the provider drops them, as a password sign-in does.
      // (The worker deletes them beside the navigation; poll rather than race it.)
      await expect
        .poll(() =>
          ui.page.evaluate(async (path) => {
            const page = globalThis as unknown as PageGlobals;
            const cache = await page.caches.open('herald-api');
            return (await cache.match(path)) !== undefined;
          }, stale),
        )
        .toBe(false);

      // Sign-out goes on to the provider's end-session page, so its session ends too.
      await ui.byTestId('sign-out').click();
      await ui.page.waitForURL((url) => url.href.startsWith(`${provider.issuer}/`));
    });

    it('password sign-in off: only the provider button; /sign-in?break-glass keeps the form for the named administrator', async () => {
      await herald.console.ok('PUT', '/settings/sign-in', {
        passwordSignIn: false,
        breakGlassUsername: ADMIN.username,
      });
      const ui = await open('en-US', PHONE);
      await ui.goto('/sign-in');
      await ui.byTestId('sso-sign-in').waitFor();
      expect(await ui.byTestId('login-form').count()).toBe(0);
      expect(await ui.page.getByText('break-glass').count()).toBe(0);
      await shot(ui, 'sso-only-en-390');

      await ui.goto('/sign-in?break-glass');
      await ui.byTestId('break-glass-hint').waitFor();
      await ui.signIn(ADMIN.username, ADMIN.password);
      expect(pageErrors).toEqual([]);
    });
  },
);
