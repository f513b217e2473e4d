import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ConsolePage } from './console-page';
import {
  chromiumAvailable,
  ensureConsoleBuilt,
  launchChromium,
  RENDERER_DIST,
  ROOT,
} from './chromium';

const SHOTS = join(ROOT, 'test-results/screenshots');
const DOCS_SHOTS = join(ROOT, 'docs/screenshots');
const ADMIN = { username: 'newcomer', password: 'first-hour-password-1' };
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

const haveChromium = chromiumAvailable('getting-started e2e');

/** The little of the page's DOM the checks read (this file is compiled without the DOM lib). */
interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}
interface PageGlobals {
  document: { documentElement: { scrollWidth: number; clientWidth: number } };
}

/**
 * A new administrator's first hour (issue 41 §1, §4, §10): the empty dashboard leads them
 * through a channel (picked from the kind grid, tried before saving), a template with an
 * instance (whose token and curl line show at once) and a first message, ticking each step off;
 * the card and the grid are usable on a phone, in English and Chinese.
 */
describe.skipIf(!haveChromium)(
  'getting started in Chromium',
  // One user journey: each step builds on the one before.
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let hook: HttpPeer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let ui: ConsolePage;
    const problems: string[] = [];
    let curlLine = '';

    const watch = (p: Page) => {
      p.on('console', (msg) => {
        if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
      });
      p.on('pageerror', (err) => problems.push(`page: ${err.message}`));
    };
    const shot = async (p: Page, name: string, docs?: string) => {
      await new ConsolePage(p, herald.url).settled();
      const path = join(SHOTS, `${name}.png`);
      await p.screenshot({ path, fullPage: false });
      if (docs) copyFileSync(path, join(DOCS_SHOTS, docs));
    };
    const step = (p: ConsolePage, key: string) => p.byTestId(`getting-started-${key}`);
    const box = async (locator: ReturnType<ConsolePage['byTestId']>): Promise<Box> => {
      const b = await locator.boundingBox();
      if (!b) throw new Error('not shown');
      return {
        left: b.x,
        right: b.x + b.width,
        top: b.y,
        bottom: b.y + b.height,
        width: b.width,
        height: b.height,
      };
    };
    /** No part of the page needs a sideways scroll. */
    const fitsWidth = (p: Page) =>
      p.evaluate(() => {
        const root = (globalThis as unknown as PageGlobals).document.documentElement;
        return root.scrollWidth <= root.clientWidth;
      });

    beforeAll(async () => {
      ensureConsoleBuilt();
      mkdirSync(SHOTS, { recursive: true });
      mkdirSync(DOCS_SHOTS, { recursive: true });
      hook = await startHttpPeer({ status: 200, body: '{"received":true}' });
      herald = await startTestHerald({ setup: false, rendererDir: RENDERER_DIST });
      browser = await launchChromium();
      context = await browser.newContext({
        viewport: DESKTOP,
        locale: 'en-US',
        colorScheme: 'light',
      });
      page = await context.newPage();
      watch(page);
      ui = new ConsolePage(page, herald.url);
    });
    afterAll(async () => {
      await browser?.close();
      await herald?.close(true);
      await hook?.close();
    });

    it('the empty dashboard shows the three steps, none done, each linking to its page', async () => {
      await ui.goto('/');
      await ui.setup(ADMIN.username, ADMIN.password, herald.server.setupCode()!);
      const card = ui.byTestId('getting-started');
      await card.waitFor();
      for (const key of ['channel', 'template', 'send'])
        expect(await step(ui, key).getAttribute('data-done'), key).toBe('false');
      expect(await ui.byTestId('getting-started-progress').textContent()).toContain('0 of 3');
      // Above the statistics, the first thing a newcomer sees.
      expect((await box(card)).top).toBeLessThan((await box(ui.byTestId('kpi-today'))).top);
      expect((await box(card)).bottom).toBeLessThan(DESKTOP.height);
      await shot(page, 'getting-started-empty-dashboard', 'console-getting-started.png');
    });

    it('the sidebar lists Templates (V2) above Tasks (V1)', async () => {
      const templates = await box(ui.byTestId('nav-templates'));
      const tasks = await box(ui.byTestId('nav-tasks'));
      expect(templates.top).toBeLessThan(tasks.top);
    });

    it('step 1 leads to Channels, whose dialog asks for the kind first, from a grid', async () => {
      await ui.byTestId('getting-started-channel-link').click();
      await ui.byTestId('page-channels').waitFor();
      await ui.byTestId('channel-create').click();
      await ui.byTestId('channel-kind-picker').waitFor();
      // Nothing chosen: no form and no Save until a kind is picked.
      expect(await ui.byTestId('channel-name').count()).toBe(0);
      expect(await ui.byTestId('channel-save').count()).toBe(0);
      const groups = await ui.page
        .locator('[data-testid^="channel-kind-group-"]')
        .evaluateAll((els) =>
          els.map((el) => (el as unknown as { dataset: { testid: string } }).dataset.testid),
        );
      expect(groups).toEqual([
        'channel-kind-group-chinese',
        'channel-kind-group-chat',
        'channel-kind-group-push',
        'channel-kind-group-email_webhook',
        'channel-kind-group-hosted',
      ]);
      const webhook = ui.byTestId('channel-kind-webhook');
      expect(await webhook.textContent()).toContain('Any HTTP request');
      expect(await webhook.locator('svg').count()).toBe(1);
      await shot(page, 'getting-started-channel-kinds', 'console-channel-kinds.png');
    });

    it('the webhook form labels its signing secret, keeps Generate and the markers beside their fields, Advanced shut', async () => {
      await ui.byTestId('channel-kind-webhook').click();
      await ui.byTestId('channel-config-url').waitFor();
      const signing = ui.page.locator('.el-form-item', {
        has: ui.byTestId('channel-config-signingSecret'),
      });
      expect((await signing.locator('.el-form-item__label').textContent())?.trim()).toBe(
        'Signing secret',
      );
      expect(await signing.getByTestId('channel-config-signingSecret-generate').count()).toBe(1);
      const body = ui.page.locator('.el-form-item', { has: ui.byTestId('channel-config-body') });
      expect(await body.getByTestId('channel-webhook-markers-note').textContent()).toContain(
        '{{title}}',
      );
      // Advanced is shut: its proxy field is not shown until it is opened.
      expect(await ui.byTestId('channel-config-proxy').isVisible()).toBe(false);
      const dialog = ui.byTestId('channel-dialog');
      const height = (await box(dialog)).height;
      // It was 1,240 px with Advanced open and the markers at the bottom.
      expect(height).toBeLessThan(1100);
      await shot(page, 'getting-started-webhook-form');
    });

    it('"Send test" tries the webhook before it is saved', async () => {
      await ui.byTestId('channel-name').fill('Ops hook');
      await ui.byTestId('channel-config-url').fill(`${hook.url}/first-hour`);
      const before = hook.received.length;
      await ui.byTestId('channel-dialog-test').click();
      await ui.byTestId('channel-test-unsaved-note').waitFor();
      await ui.byTestId('channel-test-send').click();
      await ui.byTestId('channel-test-result').waitFor();
      expect(await ui.byTestId('channel-test-reply').textContent()).toContain('received');
      await hook.waitForRequests(before + 1);
      expect(hook.received.at(-1)!.url).toBe('/first-hour');
      // Nothing saved by the test.
      const api = new ConsoleClient(herald.url);
      await api.ok('POST', '/login', ADMIN);
      expect((await api.ok('GET', '/channels')).total).toBe(0);
      await ui.closeOverlay(ui.byTestId('channel-test-dialog'));
      await ui.byTestId('channel-save').click();
      await ui.expectClosed(ui.byTestId('channel-dialog'), 'channel-error');
      await ui.row('channel-table', 'Ops hook').waitFor();
    });

    it('step 1 is ticked off on the dashboard', async () => {
      await ui.nav('dashboard');
      await ui.page.locator('[data-testid="getting-started-channel"][data-done="true"]').waitFor();
      expect(await step(ui, 'template').getAttribute('data-done')).toBe('false');
    });

    it('step 2: a template’s first instance shows its token and a ready curl line at once', async () => {
      await ui.byTestId('getting-started-template-link').click();
      await ui.byTestId('page-templates').waitFor();
      await ui.byTestId('template-create').click();
      await ui.byTestId('template-dialog').waitFor();
      await ui.byTestId('template-name').fill('First hour');
      await ui.byTestId('template-text').fill('Hello from the first hour');
      await ui.byTestId('template-save').click();
      await ui.byTestId('template-instances-drawer').waitFor();
      await ui.addInstance('Ops hook', 'text');
      const panel = ui.byTestId('first-send-panel');
      await panel.waitFor();
      const token = await ui.byTestId('first-send-token').inputValue();
      expect(token.length).toBeGreaterThan(10);
      curlLine = (await ui.byTestId('first-send-curl').textContent()) ?? '';
      expect(curlLine).toContain(`${herald.url}/api/v2/message/send`);
      expect(curlLine).toContain(token);
      await shot(page, 'getting-started-first-send');
    });

    it('the curl line runs as shown and sends the first message', async () => {
      const before = hook.received.length;
      // Not execFileSync: this Herald answers from this very process.
      const { stdout } = await promisify(execFile)('sh', ['-c', curlLine], { encoding: 'utf8' });
      const answer = JSON.parse(stdout) as { code: number };
      expect(answer.code).toBe(200);
      const [delivered] = (await hook.waitForRequests(before + 1)).slice(before);
      expect(delivered!.json).toMatchObject({ title: 'Hello from Herald' });
    });

    it('once all three are done, the card goes away', async () => {
      await ui.closeOverlay(ui.byTestId('template-instances-drawer'));
      await ui.nav('dashboard');
      await ui.byTestId('kpi-today').waitFor();
      await ui.page.waitForTimeout(300);
      expect(await ui.byTestId('getting-started').count()).toBe(0);
    });

    it('on a phone, in Chinese, the card and the kind grid are usable', async () => {
      // A second Herald that is still empty, seen from a phone.
      const fresh = await startTestHerald({ rendererDir: RENDERER_DIST });
      const phone = await browser.newContext({
        viewport: PHONE,
        locale: 'zh-CN',
        colorScheme: 'light',
        isMobile: true,
        hasTouch: true,
      });
      try {
        const p = await phone.newPage();
        watch(p);
        const small = new ConsolePage(p, fresh.url);
        await small.goto('/');
        await small.signIn('admin', 'correct horse battery');
        const card = small.byTestId('getting-started');
        await card.waitFor();
        expect(await small.byTestId('getting-started-channel').textContent()).toContain('添加渠道');
        const cardBox = await box(card);
        expect(cardBox.left).toBeGreaterThanOrEqual(0);
        expect(cardBox.right).toBeLessThanOrEqual(PHONE.width);
        for (const key of ['channel', 'template', 'send']) {
          const link = await box(small.byTestId(`getting-started-${key}-link`));
          expect(link.right, key).toBeLessThanOrEqual(PHONE.width);
          expect(link.height, key).toBeGreaterThan(10);
        }
        expect(await fitsWidth(p)).toBe(true);
        await shot(p, 'getting-started-phone-zh');

        await small.byTestId('getting-started-channel-link').tap();
        await small.byTestId('page-channels').waitFor();
        await small.byTestId('channel-create').tap();
        await small.byTestId('channel-kind-picker').waitFor();
        expect(await small.byTestId('channel-kind-group-push').textContent()).toContain('推送应用');
        const bark = small.byTestId('channel-kind-bark');
        await bark.scrollIntoViewIfNeeded();
        const barkBox = await box(bark);
        expect(barkBox.left).toBeGreaterThanOrEqual(0);
        expect(barkBox.right).toBeLessThanOrEqual(PHONE.width);
        // A card big enough to tap.
        expect(barkBox.height).toBeGreaterThanOrEqual(44);
        const dialog = await box(small.byTestId('channel-dialog'));
        expect(dialog.right).toBeLessThanOrEqual(PHONE.width);
        await shot(p, 'getting-started-phone-kinds-zh');
        await bark.tap();
        await small.byTestId('channel-config-deviceKey').waitFor();
        expect(await small.byTestId('channel-type').textContent()).toContain('Bark');
      } finally {
        await phone.close();
        await fresh.close(true);
      }
    });

    it('logged no console or page error', () => {
      expect(problems).toEqual([]);
    });
  },
);
