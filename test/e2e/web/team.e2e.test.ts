import jsQR from 'jsqr';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { base32Decode, totpAt } from '../../../server/crypto/totp';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ConsolePage } from './console-page';
import { chromiumAvailable, ensureConsoleBuilt, launchChromium, RENDERER_DIST } from './chromium';

const haveChromium = chromiumAvailable('team e2e');

const VIEWER = { username: 'reader', password: 'reader-password-1' };
const TITLE = 'Nightly report from backup-01';
/** Sent once the viewer exists: what came before a teammate joined starts read for them. */
const NEW_TITLE = 'Morning check on backup-01';

/**
 * Run in the page on an `<svg>`: draws it, as the browser renders it, onto a canvas at twice its
 * size and answers the pixels (RGBA, base64). A string: this file's types know no DOM.
 */
const DRAW_SVG = `async (svg) => {
  const scale = 2;
  const box = svg.getBoundingClientRect();
  const image = new Image();
  image.src = 'data:image/svg+xml;base64,' + btoa(new XMLSerializer().serializeToString(svg));
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(box.width * scale);
  canvas.height = Math.round(box.height * scale);
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  const { data, width, height } = context.getImageData(0, 0, canvas.width, canvas.height);
  let binary = '';
  for (const byte of data) binary += String.fromCharCode(byte);
  return { rgba: btoa(binary), width, height };
}`;

/** The nav links of the console's sidebar, by test id (the header's account link is not one). */
const navLinks = (page: Page) =>
  page
    .locator('nav a[data-testid^="nav-"]')
    .evaluateAll((links) => links.map((a) => a.getAttribute('data-testid')));

/**
 * The team layer in a real browser: an administrator invites a viewer, the viewer opens the
 * link in a browser of their own, and the console shows and allows them only a viewer's share.
 */
describe.skipIf(!haveChromium)(
  'the team in Chromium',
  // One story across two browsers: each step builds on the one before, so steps keep their
  // order when CI shuffles the suite.
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let hook: HttpPeer;
    let browser: Browser;
    let admin: ConsolePage;
    let viewer: ConsolePage;
    const pageErrors: string[] = [];
    /** Console API calls the viewer's own pages made and were refused. */
    const viewerRefused: string[] = [];
    let inviteLink = '';
    let taskToken = '';

    const openPage = async () => {
      const context = await browser.newContext({
        viewport: { width: 1360, height: 860 },
        locale: 'en-US',
      });
      const page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      return new ConsolePage(page, herald.url);
    };

    beforeAll(async () => {
      ensureConsoleBuilt();
      // A webhook that refuses for good (a 4xx): the send has a failed delivery, the one
      // delivery an editor could retry.
      hook = await startHttpPeer({ status: 400, body: '{"error":"bad payload"}' });
      herald = await startTestHerald({ rendererDir: RENDERER_DIST });
      const hosted = await herald.createChannel('hosted', {}, 'Team reader');
      const webhook = await herald.createChannel('webhook', { url: `${hook.url}/h` }, 'Ops hook');
      const { token } = await herald.createTask('Backups', [
        { channelId: hosted.id, contentType: 'html' },
        { channelId: webhook.id, contentType: 'text' },
      ]);
      const sent = await herald.sendV1({
        token,
        title: TITLE,
        text: 'All volumes backed up.',
        html: '<p>All volumes <b>backed up</b>.</p>',
      });
      expect(sent.body.code).toBe(200);
      await hook.waitForRequests(1);
      taskToken = token;
      browser = await launchChromium();
      admin = await openPage();
      await admin.goto('/');
      await admin.signIn(ADMIN.username, ADMIN.password);
    });

    afterAll(async () => {
      await browser?.close();
      await herald?.close(true);
      await hook?.close();
    });

    it('an administrator creates a viewer with an invite link and reads it from the dialog', async () => {
      await admin.nav('users');
      await admin.byTestId('user-create').click();
      const dialog = admin.byTestId('user-dialog');
      await dialog.waitFor();
      await admin.byTestId('user-username').fill(VIEWER.username);
      await admin.byTestId('user-role-viewer').click();
      await admin.byTestId('user-how-invite').click();
      expect(await admin.byTestId('user-password').count()).toBe(0);

      await admin.byTestId('user-save').click();

      await admin.expectClosed(dialog, 'user-error');
      await admin.byTestId('invite-link-dialog').waitFor();
      inviteLink = await admin.byTestId('invite-link').inputValue();
      expect(inviteLink).toMatch(new RegExp(`^${herald.url}/invite\\?token=[\\w-]{20,}$`));
      await admin.byTestId('invite-link-done').click();
      await admin.byTestId('invite-link-dialog').waitFor({ state: 'hidden' });
      const row = admin.row('user-table', VIEWER.username);
      expect(await row.getByTestId(`user-role-tag-${VIEWER.username}`).textContent()).toBe(
        'Viewer',
      );
      expect(await row.getByTestId('user-state-invited').count()).toBe(1);
    });

    it('the link, opened in another browser, sets a password and signs the viewer in', async () => {
      // A fresh context: no cookie of the administrator's, as for the person the link was sent to.
      viewer = await openPage();
      viewer.page.on('response', (r) => {
        if (r.status() === 403 && r.url().includes('/api/console/')) {
          viewerRefused.push(`${r.request().method()} ${new URL(r.url()).pathname}`);
        }
      });
      await viewer.page.goto(inviteLink);
      await viewer.byTestId('invite-form').waitFor();
      expect(await viewer.byTestId('invite-for').textContent()).toContain(VIEWER.username);
      await viewer.byTestId('invite-password').fill(VIEWER.password);
      await viewer.byTestId('invite-password-confirm').fill(VIEWER.password);

      await viewer.byTestId('invite-submit').click();

      await viewer.byTestId('page-dashboard').waitFor();
      expect(new URL(viewer.page.url()).pathname).toBe('/');
      expect(await viewer.byTestId('current-user').textContent()).toBe(VIEWER.username);
      expect((await viewer.byTestId('current-role').textContent())?.trim()).toBe('Viewer');
    });

    it("shows the viewer only a viewer's pages, and the dashboard loads", async () => {
      expect(await navLinks(viewer.page)).toEqual(['nav-dashboard', 'nav-logs', 'nav-messages']);
      for (const hidden of ['channels', 'tasks', 'templates', 'schedules', 'settings', 'users']) {
        expect(await viewer.byTestId(`nav-${hidden}`).count()).toBe(0);
      }
      expect(await viewer.byTestId('nav-audit').count()).toBe(0);

      // The day's one send is counted: the statistics answered the viewer.
      await expect.poll(() => viewer.byTestId('kpi-today').textContent()).toContain('1');
      expect(await viewer.byTestId('page-error').count()).toBe(0);
    });

    it('lists the API send in the logs, with no source filter and no retry', async () => {
      await viewer.nav('logs');
      const row = viewer.row('logs-table', TITLE);
      await row.waitFor();
      expect(await viewer.byTestId('logs-search').count()).toBe(1);
      expect(await viewer.byTestId('logs-source').count()).toBe(0);

      await row.getByTestId('log-detail').click();

      const drawer = viewer.byTestId('log-drawer');
      await drawer.waitFor();
      await expect.poll(() => drawer.getByTestId('log-delivery').count()).toBe(2);
      const failed = drawer.getByTestId('log-delivery').filter({ hasText: 'Ops hook' });
      await expect.poll(() => failed.textContent()).toContain('Failed');
      // A failed delivery is the one an editor may retry (the administrator sees it below).
      expect(await drawer.getByTestId('log-retry').count()).toBe(0);
      await viewer.closeOverlay(drawer);
    });

    it('shows a hosted message without delete or share link, and reading it works', async () => {
      await viewer.nav('messages');
      const earlier = viewer.row('messages-table', TITLE);
      await earlier.waitFor();
      expect(await earlier.getByTestId('message-unread-dot').count()).toBe(0);

      const sent = await herald.sendV1({
        token: taskToken,
        title: NEW_TITLE,
        text: 'Volumes are fine.',
        html: '<p>Volumes are <b>fine</b>.</p>',
      });
      expect(sent.body.code).toBe(200);
      const row = viewer.row('messages-table', NEW_TITLE);
      await row.waitFor();
      expect(await row.getByTestId('message-unread-dot').count()).toBe(1);

      await row.getByTestId('message-detail').click();

      const drawer = viewer.byTestId('message-drawer');
      await expect.poll(() => drawer.getByTestId('message-title').textContent()).toBe(NEW_TITLE);
      expect(await drawer.getByTestId('message-content').locator('b').textContent()).toBe('fine');
      expect(await viewer.byTestId('message-delete').count()).toBe(0);
      expect(await viewer.byTestId('message-share').count()).toBe(0);
      // Opening it reads it; the toggle then takes it back and forth.
      await row.getByTestId('message-unread-dot').waitFor({ state: 'detached' });
      const toggle = drawer.getByTestId('message-toggle-read');
      await expect.poll(() => toggle.textContent()).toContain('Mark unread');
      await toggle.click();
      await row.getByTestId('message-unread-dot').waitFor();
      await expect.poll(() => toggle.textContent()).toContain('Mark read');
      await toggle.click();
      await row.getByTestId('message-unread-dot').waitFor({ state: 'detached' });
      await viewer.closeOverlay(drawer);

      // The server kept it: a fresh load shows it read.
      await viewer.page.reload();
      await viewer.row('messages-table', NEW_TITLE).waitFor();
      expect(
        await viewer.row('messages-table', NEW_TITLE).getByTestId('message-unread-dot').count(),
      ).toBe(0);
    });

    it("asked for nothing beyond a viewer's share on the viewer's pages", () => {
      // The reader once read the settings for "always show remote images": a 403 for a viewer.
      expect(viewerRefused).toEqual([]);
    });

    it("sends a typed address of an editor's page to the dashboard", async () => {
      await viewer.goto('/channels');

      await viewer.byTestId('page-dashboard').waitFor();
      expect(new URL(viewer.page.url()).pathname).toBe('/');
      expect(await viewer.byTestId('page-channels').count()).toBe(0);
    });

    it("answers the viewer's own call to an editor's route 403, in the envelope", async () => {
      const answer = await viewer.page.evaluate(async () => {
        const res = await fetch('/api/console/channels');
        return { status: res.status, body: (await res.json()) as unknown };
      });

      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ code: 403, msg: expect.stringMatching(/editor/) });
    });

    it('shows the administrator, for the same send and message, what the viewer was not shown', async () => {
      // The controls the viewer lacked exist here, so their absence above was the role's doing.
      await admin.nav('logs');
      expect(await admin.byTestId('logs-source').count()).toBe(1);
      await admin.row('logs-table', TITLE).getByTestId('log-detail').click();
      const logDrawer = admin.byTestId('log-drawer');
      await logDrawer.waitFor();
      await expect.poll(() => logDrawer.getByTestId('log-retry').count()).toBe(1);
      await admin.closeOverlay(logDrawer);

      await admin.nav('messages');
      await admin.row('messages-table', TITLE).getByTestId('message-detail').click();
      const drawer = admin.byTestId('message-drawer');
      await expect.poll(() => drawer.getByTestId('message-title').textContent()).toBe(TITLE);
      expect(await admin.byTestId('message-delete').count()).toBe(1);
      expect(await admin.byTestId('message-share').count()).toBe(1);
      await admin.closeOverlay(drawer);
    });

    it("lists the account's creation and the viewer's accepted invite in the audit log", async () => {
      await admin.nav('audit');
      // Setting Herald up created the administrator: that entry is another user.create.
      // Entries read as sentences with names (issue 41 §13).
      const created = admin.row('audit-table', `added the user ${VIEWER.username}`);
      const accepted = admin.row('audit-table', 'accepted their invite').filter({
        has: admin.byTestId('audit-who').filter({ hasText: VIEWER.username }),
      });
      await created.waitFor();
      await accepted.waitFor();

      expect(await created.getByTestId('audit-who').textContent()).toBe(ADMIN.username);
      expect(await created.getByTestId('audit-target').textContent()).toBe(VIEWER.username);
      expect(await accepted.getByTestId('audit-who').textContent()).toBe(VIEWER.username);

      // The action filter offers the invite's acceptance and lists only that; the day range,
      // found by its test id, is a field of the toolbar like the others.
      await admin.choose('audit-action', { text: 'user.accept-invite' });
      await expect.poll(() => admin.row('audit-table', 'added the user').count()).toBe(0);
      expect(await accepted.count()).toBe(1);
      const days = admin.byTestId('audit-range').locator('input');
      expect(await days.count()).toBe(2);
      expect(await days.first().isVisible()).toBe(true);
    });

    it('sends the viewer to Account at their next page load once two-factor is required', async () => {
      await admin.nav('settings');
      await admin.byTestId('settings-require-two-factor').click();
      await admin.byTestId('settings-security-save').click();
      // The rule binds the administrator too, who has no second factor either.
      await admin.byTestId('account-must-enrol').waitFor();

      // A page load: the console learns the rule when it restores the session. (A click in a
      // console opened before the rule shows the server's 403 on the page instead.)
      await viewer.goto('/logs');

      await viewer.byTestId('account-must-enrol').waitFor();
      expect(new URL(viewer.page.url()).pathname).toBe('/account');
      expect(await viewer.byTestId('page-logs').count()).toBe(0);
    });

    it('lets the viewer enrol by scanning the QR code: it holds the setup link, whose key gives the code', async () => {
      await viewer.byTestId('two-factor-setup-start').click();
      await viewer.byTestId('two-factor-setup').waitFor();
      const link = await viewer.byTestId('two-factor-link').getAttribute('href');
      expect(link).toMatch(/^otpauth:\/\/totp\//);

      // What a phone's camera does: the code as drawn on the page, read by a QR decoder (here,
      // in the test: the console's CSP rightly refuses a script the page did not bring).
      const drawn = (await viewer.page.evaluate(
        `(${DRAW_SVG})(document.querySelector('[data-testid="two-factor-qr"]'))`,
      )) as {
        rgba: string;
        width: number;
        height: number;
      };
      const rgba = new Uint8ClampedArray(Buffer.from(drawn.rgba, 'base64'));
      const scanned = jsQR(rgba, drawn.width, drawn.height)?.data ?? null;
      expect(scanned).toBe(link);

      const secret = new URL(scanned!).searchParams.get('secret')!;
      await viewer.byTestId('two-factor-code').fill(totpAt(base32Decode(secret), Date.now()));
      await viewer.byTestId('two-factor-enable').click();
      await viewer.byTestId('recovery-codes').waitFor();
    });

    it('raised no page error in either browser', () => {
      expect(pageErrors).toEqual([]);
    });
  },
);
