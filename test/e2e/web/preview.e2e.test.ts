import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { chromiumAvailable, ensureConsoleBuilt, launchChromium, RENDERER_DIST } from './chromium';

const haveChromium = chromiumAvailable('preview e2e');

const HOSTILE =
  '<p>Before</p><script>window.__heraldXss = "script"</script>' +
  '<img src="data:image/png;base64,AAAA" alt="broken" onerror="window.__heraldXss = \'onerror\'">' +
  '<p>After</p>';

/** A share link opened in a browser that never signed in to the console. */
describe.skipIf(!haveChromium)(
  'share links in Chromium',
  // One user journey: each step builds on the one before, so steps keep their order when CI
  // shuffles the suite.
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];
    let link = '';

    beforeAll(async () => {
      ensureConsoleBuilt();
      herald = await startTestHerald({ rendererDir: RENDERER_DIST });
      const hosted = await herald.createChannel('hosted');
      const { token } = await herald.createTask('e2e-share', [
        { channelId: hosted.id, contentType: 'html', publicLink: true },
      ]);
      const sent = await herald.sendV1({ token, title: 'Shared alert', html: HOSTILE });
      link = sent.body.data.hostMessageUrl;
      browser = await launchChromium();
      // A fresh context: no session cookie, as for someone who got the link in a chat.
      const context = await browser.newContext({ locale: 'en-US' });
      page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
    });

    afterAll(async () => {
      await browser?.close();
      await herald?.close(true);
    });

    it('the link opens the message alone, sanitised, without signing in', async () => {
      await page.goto(link);
      await page.getByTestId('message-title').waitFor();
      expect(await page.getByTestId('message-title').textContent()).toBe('Shared alert');
      const content = page.getByTestId('message-content');
      expect(await content.textContent()).toContain('Before');
      expect(await content.innerHTML()).not.toContain('<script');
      expect(await content.innerHTML()).not.toContain('onerror');
      expect(await page.evaluate('window.__heraldXss')).toBeUndefined();
      expect(new URL(page.url()).pathname).toBe(new URL(link).pathname);
      expect(await page.getByTestId('login-username').count()).toBe(0);
      expect(await page.locator('.el-menu').count()).toBe(0);
    });

    it("Message Nest's /#/preview/<key> form opens the same page", async () => {
      const key = link.slice(link.lastIndexOf('/') + 1);
      await page.goto(`${herald.url}/#/preview/${key}`);
      await page.getByTestId('message-title').waitFor();
      expect(new URL(page.url()).pathname).toBe(`/preview/${key}`);
      expect(await page.getByTestId('message-title').textContent()).toBe('Shared alert');
    });

    it('a revoked link says it opens nothing', async () => {
      const [msg] = (await herald.console.ok('GET', '/messages?q=Shared')).items;
      await herald.console.ok('DELETE', `/messages/${msg.id}/link`);
      await page.goto(link);
      await page.getByTestId('preview-error').waitFor();
      expect(await page.getByTestId('preview-error').textContent()).toMatch(/revoked/);
      expect(await page.getByTestId('message-title').count()).toBe(0);
      expect(pageErrors).toEqual([]);
    });
  },
);
