import { existsSync, mkdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';

import { type Browser, type BrowserContext, type Page } from 'playwright-core';
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
const ADMIN = { username: 'operator', password: 'e2e-password-1' };

const haveChromium = chromiumAvailable('console e2e');

/** An image that fails to decode (so an onerror handler, if one survived, would fire). */
const BROKEN_IMAGE = 'data:image/png;base64,AAAA';
const HOSTILE_HTML =
  '<p>Before</p>' +
  '<script>window.__heraldXss = "script"; alert("script")</script>' +
  `<img src="${BROKEN_IMAGE}" alt="broken" onerror="window.__heraldXss = 'onerror'; alert('onerror')">` +
  '<a href="https://example.com/runbook">runbook</a>' +
  '<p>After</p>';

describe.skipIf(!haveChromium)(
  'console in Chromium',
  // One user journey: each step builds on the one before, so steps keep their order when CI
  // shuffles the suite.
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let hook: HttpPeer;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let ui: ConsolePage;
    const consoleErrors: string[] = [];
    const pageErrors: string[] = [];
    const dialogs: string[] = [];
    let templateToken = '';

    /** Screenshots for people to look at, taken once drawers and dialogs finished sliding in. */
    const shot = async (name: string) => {
      await ui.settled();
      await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
    };

    beforeAll(async () => {
      // The server serves the built console; build it once when a clean clone has none.
      ensureConsoleBuilt();
      mkdirSync(SHOTS, { recursive: true });
      hook = await startHttpPeer({ status: 200, body: '{"received":true}' });
      herald = await startTestHerald({ setup: false, rendererDir: RENDERER_DIST });
      browser = await launchChromium();
      context = await browser.newContext({
        viewport: { width: 1360, height: 860 },
        locale: 'en-US',
        colorScheme: 'light',
      });
      page = await context.newPage();
      page.on('console', (msg) => {
        if (msg.type() === 'error')
          consoleErrors.push(
            `${msg.text()} (at ${msg.location().url}:${msg.location().lineNumber})`,
          );
      });
      page.on('pageerror', (err) => pageErrors.push(err.message));
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      ui = new ConsolePage(page, herald.url);
    });

    afterAll(async () => {
      await browser?.close();
      await herald?.close(true);
      await hook?.close();
    });

    it('first-run setup creates the administrator and signs in', async () => {
      await ui.goto('/');
      await ui.byTestId('setup-form').waitFor();
      expect(new URL(page.url()).pathname).toBe('/sign-in');
      await shot('01-setup');

      // Read as a user reads it from the terminal Herald was started in.
      await ui.setup(ADMIN.username, ADMIN.password, herald.server.setupCode()!);
      expect(herald.server.setupCode()).toBeNull();

      expect(await ui.byTestId('current-user').textContent()).toBe(ADMIN.username);
    });

    it('sign out and sign in again', async () => {
      await ui.signOut();
      await shot('02-sign-in');

      await ui.signIn(ADMIN.username, ADMIN.password);

      expect(new URL(page.url()).pathname).toBe('/');
    });

    it('creates a hosted channel and a webhook channel', async () => {
      await ui.nav('channels');

      await ui.createChannel('Team reader', 'hosted');
      await ui.createChannel('Loopback hook', 'webhook', { url: `${hook.url}/herald` });

      await expect
        .poll(() => ui.row('channel-table', 'Loopback hook').textContent())
        .toContain('Custom webhook');
      await shot('03-channels');
    });

    it('creates a template with placeholders, previews it live and adds two instances', async () => {
      await ui.nav('templates');
      await ui.byTestId('template-create').click();
      await ui.byTestId('template-dialog').waitFor();
      await ui.byTestId('template-name').fill('Disk alert');
      await ui.byTestId('template-description').fill('Disk usage warnings from the backup host');
      await ui.byTestId('template-placeholder-add').click();
      await ui.byTestId('template-placeholder-key-0').fill('host');
      await ui.byTestId('template-placeholder-label-0').fill('Host');
      await ui.byTestId('template-placeholder-add').click();
      await ui.byTestId('template-placeholder-key-1').fill('level');
      await ui.byTestId('template-placeholder-label-1').fill('Level');
      await ui.byTestId('template-placeholder-default-1').fill('warning');
      await ui.byTestId('template-text').fill('Disk on {{host}} is at {{level}} level.');
      await page.getByRole('tab', { name: 'HTML' }).first().click();
      await ui
        .byTestId('template-html')
        .fill('<p>Disk on <b>{{host}}</b> is at <i>{{level}}</i> level.</p>');

      await ui.byTestId('template-preview-value-host').fill('backup-01');

      await expect
        .poll(() => ui.byTestId('template-preview-text').textContent())
        .toBe('Disk on backup-01 is at warning level.');
      await shot('04-template-editor');
      await ui.byTestId('template-save').click();
      await ui.byTestId('template-dialog').waitFor({ state: 'hidden' });

      // A new template opens its instances at once: it sends nowhere without them.
      await ui.byTestId('template-instances-drawer').waitFor();
      await ui.addInstance('Team reader', 'html');
      await ui.addInstance('Loopback hook', 'text');
      await shot('05-template-instances');
      await ui.closeOverlay(ui.byTestId('template-instances-drawer'));
      await expect.poll(() => ui.row('template-table', 'Disk alert').textContent()).toContain('2');
    });

    it('shows the template token with ready-to-run examples', async () => {
      await ui.row('template-table', 'Disk alert').getByTestId('template-send-api').click();
      await ui.byTestId('send-api-dialog').waitFor();
      await expect.poll(() => ui.byTestId('send-api-token').inputValue()).not.toBe('');

      templateToken = await ui.byTestId('send-api-token').inputValue();

      const curl = await ui.byTestId('send-api-example-curl').textContent();
      expect(curl).toContain(`${herald.url}/api/v2/message/send`);
      expect(curl).toContain(templateToken);
      expect(curl).toContain('"host"');
      await shot('06-interface');
      await ui.closeOverlay(ui.byTestId('send-api-dialog'));
    });

    it('shows a message sent through /api/v2/message/send in the reader without a reload', async () => {
      await ui.nav('messages');
      await ui.byTestId('page-empty').waitFor();
      // A marker that a full reload would wipe.
      await page.evaluate('window.__heraldNoReload = true');

      const res = await herald.sendV2({
        token: templateToken,
        title: 'Disk almost full on backup-01',
        placeholders: { host: 'backup-01', level: 'critical' },
      });
      expect(res.body).toMatchObject({ code: 200, data: { count: 2 } });

      const row = ui.row('messages-table', 'Disk almost full on backup-01');
      await row.waitFor();
      expect(await page.evaluate('window.__heraldNoReload')).toBe(true);
      expect(await row.getByTestId('message-unread-dot').count()).toBe(1);
      await expect.poll(() => ui.byTestId('nav-unread-count').textContent()).toContain('1');
      const [delivered] = await hook.waitForRequests(1);
      expect(delivered.json).toMatchObject({ title: 'Disk almost full on backup-01' });
      expect((delivered.json as { content: string }).content).toBe(
        'Disk on backup-01 is at critical level.',
      );
    });

    it('searches the reader and opens the detail panel', async () => {
      await ui.byTestId('messages-search').fill('no-such-words');
      await ui.row('messages-table', 'Disk almost full').waitFor({ state: 'detached' });
      await ui.byTestId('messages-search').fill('backup-01');
      const row = ui.row('messages-table', 'Disk almost full on backup-01');
      await row.waitFor();

      await row.getByTestId('message-detail').click();

      const drawer = ui.byTestId('message-drawer');
      await drawer.waitFor();
      await expect
        .poll(() => drawer.getByTestId('message-title').textContent())
        .toBe('Disk almost full on backup-01');
      const content = drawer.getByTestId('message-content');
      expect(await content.locator('b').textContent()).toBe('backup-01');
      expect(await drawer.getByTestId('message-created').textContent()).not.toBe('');
      expect(new URL(page.url()).pathname).toMatch(/^\/messages\/\d+$/);
      // Opening a message reads it.
      await row.getByTestId('message-unread-dot').waitFor({ state: 'detached' });
      await shot('07-reader');
      await ui.closeOverlay(drawer);
      await ui.byTestId('messages-search').fill('');
    });

    it('shows the send in the logs with both deliveries and their attempts', async () => {
      await ui.nav('logs');
      const row = ui.row('logs-table', 'Disk almost full on backup-01');
      await row.waitFor();

      await row.getByTestId('log-detail').click();

      const drawer = ui.byTestId('log-drawer');
      await drawer.waitFor();
      await expect.poll(() => drawer.getByTestId('log-delivery').count()).toBe(2);
      const deliveries = await drawer.getByTestId('log-delivery').allTextContents();
      expect(deliveries.join('\n')).toContain('Team reader');
      expect(deliveries.join('\n')).toContain('Loopback hook');
      await expect
        .poll(async () =>
          (await drawer.getByTestId('log-delivery').allTextContents()).every((t) =>
            t.includes('Sent'),
          ),
        )
        .toBe(true);
      expect(await drawer.getByTestId('log-request').textContent()).toContain('backup-01');
      await shot('08-log-detail');
      await ui.closeOverlay(drawer);
    });

    it('shows an HTML message with a script and an onerror handler without running either', async () => {
      const api = new ConsoleClient(herald.url);
      await api.ok('POST', '/login', ADMIN);
      const channels = await api.ok<{ items: { id: number; name: string }[] }>('GET', '/channels');
      const reader = channels.items.find((c) => c.name === 'Team reader')!;
      const template = await api.ok<{ id: number }>('POST', '/templates', {
        name: 'Hostile HTML',
        html: HOSTILE_HTML,
      });
      await api.ok('POST', `/templates/${template.id}/instances`, {
        channelId: reader.id,
        contentType: 'html',
      });
      const { token } = await api.ok<{ token: string }>('GET', `/templates/${template.id}/token`);
      await ui.nav('messages');

      await herald.sendV2({ token, title: 'Hostile message' });
      const row = ui.row('messages-table', 'Hostile message');
      await row.waitFor();
      await row.getByTestId('message-detail').click();

      const content = ui.byTestId('message-drawer').getByTestId('message-content');
      await content.locator('img[alt="broken"]').waitFor({ state: 'attached' });
      expect(await content.textContent()).toContain('After');
      expect(await content.locator('script').count()).toBe(0);
      expect(await content.locator('[onerror]').count()).toBe(0);
      expect(await content.locator('a').getAttribute('target')).toBe('_blank');
      expect(await content.locator('a').getAttribute('rel')).toContain('noopener');
      // Let the broken image fail to decode; a surviving handler would fire now.
      await ui.imageDone('[data-testid="message-content"] img[alt="broken"]');
      expect(await page.evaluate('window.__heraldXss')).toBeUndefined();
      expect(dialogs).toEqual([]);
      await ui.closeOverlay(ui.byTestId('message-drawer'));
      await shot('09-reader-list');
    });

    it('previews hostile template HTML sanitised in the browser, with the CSP as a second wall', async () => {
      await ui.nav('templates');
      await ui.byTestId('template-create').click();
      await ui.byTestId('template-dialog').waitFor();
      const before = consoleErrors.length;

      await page.getByRole('tab', { name: 'HTML' }).first().click();
      await ui.byTestId('template-html').fill(HOSTILE_HTML);

      const preview = ui.byTestId('template-preview-html');
      await preview.locator('img[alt="broken"]').waitFor({ state: 'attached' });
      await ui.imageDone('[data-testid="template-preview-html"] img[alt="broken"]');
      expect(await preview.locator('script').count()).toBe(0);
      expect(await preview.locator('[onerror]').count()).toBe(0);
      expect(await page.evaluate('window.__heraldXss')).toBeUndefined();
      expect(dialogs).toEqual([]);
      // DOMPurify parses the user's own markup, and Chromium reports each inline handler it
      // meets as blocked by the CSP (script-src 'self'). Those reports, and only those, are
      // expected here; they are taken out so the final check still sees everything else.
      const reports = consoleErrors.splice(before);
      for (const report of reports) {
        expect(report).toMatch(
          /Executing inline event handler violates the following Content Security Policy/,
        );
      }
      await ui.byTestId('template-cancel').click();
      await ui.byTestId('template-dialog').waitFor({ state: 'hidden' });
    });

    it('shows a failed delivery on the dashboard and retries it from the logs', async () => {
      // The webhook refuses the next request once (a permanent 4xx), then accepts again.
      hook.script.push({ status: 400, body: '{"error":"bad payload"}' });
      const res = await herald.sendV2({
        token: templateToken,
        title: 'Backup finished on backup-02',
        placeholders: { host: 'backup-02', level: 'info' },
      });
      expect(res.body.code).toBe(200);
      await ui.nav('dashboard');
      const failure = ui
        .byTestId('dashboard-failures')
        .locator('a', { hasText: 'Backup finished on backup-02' });
      await expect
        .poll(async () => {
          await ui.byTestId('dashboard-refresh').click();
          return failure.count();
        })
        .toBe(1);

      await failure.click();

      const drawer = ui.byTestId('log-drawer');
      await drawer.waitFor();
      const webhookDelivery = drawer
        .getByTestId('log-delivery')
        .filter({ hasText: 'Loopback hook' });
      await expect.poll(() => webhookDelivery.textContent()).toContain('bad payload');
      await webhookDelivery.getByTestId('log-retry').click();
      // The retry starts a fresh attempt budget; the attempt log keeps the failed one too.
      await expect
        .poll(() => webhookDelivery.getByTestId('log-retry').count(), { timeout: 15_000 })
        .toBe(0);
      // The button goes as soon as the delivery is queued again; its second attempt row comes
      // with the refresh after that attempt is recorded.
      await expect
        .poll(() => webhookDelivery.locator('.el-table__row').count(), { timeout: 15_000 })
        .toBe(2);
      await expect
        .poll(() => webhookDelivery.textContent())
        .toContain('HTTP 200 {"received":true}');
      await ui.closeOverlay(drawer);
    });

    it('renders the dashboard chart', async () => {
      await ui.nav('dashboard');
      const chart = ui.byTestId('dashboard-chart');
      const canvas = chart.locator('canvas, svg').first();
      await canvas.waitFor();

      const box = await canvas.boundingBox();

      expect(box?.width ?? 0).toBeGreaterThan(100);
      expect(box?.height ?? 0).toBeGreaterThan(100);
      await expect.poll(() => ui.byTestId('kpi-today').textContent()).toContain('3');
      // ECharts draws its bars growing on a canvas, which no DOM animation reports.
      await page.waitForTimeout(1500);
      await shot('10-dashboard');
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.waitForTimeout(1500);
      expect(await page.evaluate('document.documentElement.classList.contains("dark")')).toBe(true);
      await shot('10-dashboard-dark');
      await page.emulateMedia({ colorScheme: 'light' });
    });

    it('opens a message from its link /messages/:id', async () => {
      const api = new ConsoleClient(herald.url);
      await api.ok('POST', '/login', ADMIN);
      const list = await api.ok<{ items: { id: number; title: string }[] }>(
        'GET',
        '/messages?q=backup-01',
      );
      const id = list.items[0].id;

      await ui.goto(`/messages/${id}`);

      await expect
        .poll(() => ui.byTestId('message-drawer').getByTestId('message-title').textContent())
        .toBe('Disk almost full on backup-01');
      await ui.closeOverlay(ui.byTestId('message-drawer'));
    });

    it('holds back a remote image in the reader until "Show images", then loads it', async () => {
      // The image is served by a loopback peer standing in for a tracker: every request counts.
      // A 4×4 BMP, whose bytes are all ASCII (the peer answers a string); Herald's image proxy
      // passes it on (it never passes SVG), and fetches from loopback only when allowed.
      const bmp = (() => {
        const pixels = Buffer.from([0x10, 0x20, 0x7f]);
        const header = Buffer.alloc(54);
        header.write('BM', 0, 'latin1');
        header.writeUInt32LE(54 + 48, 2);
        header.writeUInt32LE(54, 10);
        header.writeUInt32LE(40, 14);
        header.writeInt32LE(4, 18);
        header.writeInt32LE(4, 22);
        header.writeUInt16LE(1, 26);
        header.writeUInt16LE(24, 28);
        header.writeUInt32LE(48, 34);
        return Buffer.concat([header, ...Array<Buffer>(16).fill(pixels)]).toString('latin1');
      })();
      const tracker = await startHttpPeer({
        status: 200,
        headers: { 'Content-Type': 'image/bmp' },
        body: bmp,
      });
      const asked: string[] = [];
      const onRequest = (req: { url(): string }) => {
        if (req.url().startsWith(tracker.url)) asked.push(req.url());
      };
      page.on('request', onRequest);
      try {
        const api = new ConsoleClient(herald.url);
        await api.ok('POST', '/login', ADMIN);
        await api.ok('PUT', '/settings', { allowPrivateAddresses: true });
        const channels = await api.ok<{ items: { id: number; name: string }[] }>(
          'GET',
          '/channels',
        );
        const reader = channels.items.find((c) => c.name === 'Team reader')!;
        /** Sends a hosted message with one image; each path is new, so no cache can answer it. */
        const sendTracked = async (title: string, path: string) => {
          const template = await api.ok<{ id: number }>('POST', '/templates', {
            name: title,
            html: `<p>Newsletter</p><img src="${tracker.url}${path}" alt="tracker">`,
          });
          await api.ok('POST', `/templates/${template.id}/instances`, {
            channelId: reader.id,
            contentType: 'html',
          });
          const { token } = await api.ok<{ token: string }>(
            'GET',
            `/templates/${template.id}/token`,
          );
          expect((await herald.sendV2({ token, title })).body.code).toBe(200);
        };
        await ui.nav('messages');
        await sendTracked('Tracked newsletter', '/p.gif');
        const row = ui.row('messages-table', 'Tracked newsletter');
        await row.waitFor();

        await row.getByTestId('message-detail').click();

        const drawer = ui.byTestId('message-drawer');
        const content = drawer.getByTestId('message-content');
        await content.locator('img[alt="tracker"]').waitFor({ state: 'attached' });
        await drawer.getByTestId('remote-images-hidden').waitFor();
        expect(await content.locator('img[alt="tracker"]').getAttribute('src')).toBeNull();
        // A request of the page's own, made after the message was shown: the browser reports
        // requests in the order it makes them, so a tracker request would be reported before it.
        await page.evaluate(() => fetch('/api/console/status').then((r) => r.text()));
        expect(asked).toEqual([]);
        expect(tracker.received).toEqual([]);
        await shot('10b-reader-images-hidden');

        await drawer.getByTestId('show-images').click();

        const [fetched] = await tracker.waitForRequests(1);
        expect(fetched.url).toBe('/p.gif');
        // Fetched by Herald's image proxy, never by the browser.
        expect(asked).toEqual([]);
        expect(await content.locator('img[alt="tracker"]').getAttribute('src')).toMatch(
          /^\/api\/console\/image-proxy\?/,
        );
        await ui.imageDone('[data-testid="message-content"] img[alt="tracker"]');
        expect(
          await content
            .locator('img[alt="tracker"]')
            .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
        ).toBe(4);
        expect(await drawer.getByTestId('remote-images-hidden').count()).toBe(0);
        await ui.closeOverlay(drawer);

        // "Always show remote images" loads them as the message opens.
        await ui.nav('settings');
        await ui.byTestId('settings-show-remote-images').click();
        await ui.byTestId('settings-reader-save').click();
        await expect
          .poll(async () => (await api.ok('GET', '/settings')).showRemoteImages)
          .toBe(true);
        await sendTracked('Tracked again', '/q.gif');
        await ui.nav('messages');
        await ui.row('messages-table', 'Tracked again').getByTestId('message-detail').click();
        const [, second] = await tracker.waitForRequests(2);
        expect(second.url).toBe('/q.gif');
        expect(await drawer.getByTestId('remote-images-hidden').count()).toBe(0);
        await ui.closeOverlay(drawer);
        await api.ok('PUT', '/settings', { showRemoteImages: false, allowPrivateAddresses: false });
      } finally {
        page.off('request', onRequest);
        await tracker.close();
      }
    });

    it('shows settings and the remaining pages', async () => {
      await ui.nav('settings');
      await expect.poll(() => ui.byTestId('about-listen').textContent()).toBe(herald.url);
      await shot('11-settings');
      await ui.nav('tasks');
      await ui.byTestId('page-empty').waitFor();
      await shot('12-tasks');
    });

    it('logged no console error and no page error', () => {
      expect(pageErrors).toEqual([]);
      expect(consoleErrors).toEqual([]);
    });

    afterAll(() => {
      // The README shows the dashboard and the reader. They are refreshed on request only, so a
      // test run never leaves tracked files changed.
      if (process.env.HERALD_UPDATE_SCREENSHOTS !== '1') return;
      const docs = join(ROOT, 'docs/screenshots');
      mkdirSync(docs, { recursive: true });
      for (const [from, to] of [
        ['10-dashboard', 'console-dashboard'],
        ['07-reader', 'console-reader'],
      ]) {
        const src = join(SHOTS, `${from}.png`);
        if (existsSync(src)) copyFileSync(src, join(docs, `${to}.png`));
      }
    });
  },
);
