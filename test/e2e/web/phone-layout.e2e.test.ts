import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import en from '../../../renderer/src/i18n/en';
import zhCN from '../../../renderer/src/i18n/zh-CN';
import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { ConsolePage } from './console-page';
import {
  chromiumAvailable,
  ensureConsoleBuilt,
  launchChromium,
  RENDERER_DIST,
  ROOT,
} from './chromium';

const haveChromium = chromiumAvailable('phone layout e2e');
const SHOTS = join(ROOT, 'test-results/screenshots');

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

const LOCALES = [
  { code: 'en', browser: 'en-US', words: en },
  { code: 'zh-CN', browser: 'zh-CN', words: zhCN },
] as const;

const CHANNEL = 'Team reader';
const VIEWER = 'night-shift-reader';
/** A token with no break opportunity: it must wrap inside its card, not widen the page. */
const LONG_TITLE = 'Disk alert db-2.internal.example.com/var/lib/postgresql/16/main/pg_wal';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The little of the DOM the page functions below use (this file is compiled without the DOM lib). */
interface Measured {
  scrollWidth: number;
  clientWidth: number;
}
interface PageGlobals {
  document: {
    documentElement: Measured;
    querySelector(selector: string): Measured | null;
    createRange(): {
      setStart(node: unknown, offset: number): void;
      setEnd(node: unknown, offset: number): void;
      getClientRects(): { length: number; item(i: number): { top: number } | null };
    };
  };
}
interface TextElement {
  firstChild: { textContent: string | null } | null;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function box(locator: Locator): Promise<Box> {
  const found = await locator.boundingBox();
  if (!found) throw new Error('element has no box (not visible)');
  return found;
}

/** How far the page and the console's main area scroll sideways (0: they do not). */
function sideways(page: Page): Promise<{ page: number; main: number }> {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    const root = document.documentElement;
    const main = document.querySelector('.console__main');
    return {
      page: root.scrollWidth - root.clientWidth,
      main: main ? main.scrollWidth - main.clientWidth : 0,
    };
  });
}

/**
 * How the browser laid out an element's text (its first text node): on how many lines, and the
 * words it split over two of them (a word broken in its middle, as `word-break: break-all` does).
 */
function textLines(locator: Locator): Promise<{ lines: number; broken: string[] }> {
  return locator.evaluate((element) => {
    const { document } = globalThis as unknown as PageGlobals;
    const node = (element as unknown as TextElement).firstChild;
    const text = node?.textContent ?? '';
    const topsOf = (from: number, to: number) => {
      const range = document.createRange();
      range.setStart(node, from);
      range.setEnd(node, to);
      const rects = range.getClientRects();
      const tops = new Set<number>();
      for (let i = 0; i < rects.length; i++) tops.add(Math.round(rects.item(i)?.top ?? 0));
      return tops.size;
    };
    const broken: string[] = [];
    for (const match of text.matchAll(/\S+/g)) {
      const at = match.index ?? 0;
      if (topsOf(at, at + match[0].length) > 1) broken.push(match[0]);
    }
    return { lines: topsOf(0, text.length), broken };
  });
}

/**
 * The console on a phone (390 × 844) and on a desktop (1440 × 900), in English and Chinese: the
 * menu drawer, one-line header, cards for lists, the reader, and what must not wrap, overflow
 * or be covered (issue 41, items 6 and 14).
 */
describe.skipIf(!haveChromium)(
  'the console on a phone and a wide screen',
  // The steps share one Herald and count the messages sent so far: they keep their order.
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let hook: HttpPeer;
    let browser: Browser;
    let token = '';
    let sent = 0;
    const pageErrors: string[] = [];

    /** A hosted message (and its webhook delivery) through the send API. */
    async function send(title: string): Promise<void> {
      const answer = await herald.sendV1({
        token,
        title,
        text: `${title}: web-3 disk at 91 %, check /var/log.`,
        markdown: `# ${title}\n\n**web-3** disk at **91%**\n\n- check \`/var/log\``,
      });
      expect(answer.body.code).toBe(200);
      sent++;
      // The reader's row is written as the queue delivers: wait for it, so that a page opened
      // next lists it rather than racing the delivery (and its live event) to it.
      await herald.waitFor(async () => {
        const found = await herald.console.get(`/messages?q=${encodeURIComponent(title)}`);
        return found.body.data?.items?.length > 0;
      });
    }

    async function open(
      viewport: { width: number; height: number },
      browserLocale: string,
    ): Promise<{ context: BrowserContext; ui: ConsolePage }> {
      const phone = viewport.width < 768;
      const context = await browser.newContext({
        viewport,
        locale: browserLocale,
        colorScheme: 'light',
        deviceScaleFactor: phone ? 2 : 1,
        isMobile: phone,
        hasTouch: phone,
      });
      const page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      const ui = new ConsolePage(page, herald.url);
      // Signed in straight to the reader: the pages under test, not the dashboard's chart.
      await ui.goto('/sign-in?redirect=/messages');
      await ui.byTestId('login-form').waitFor();
      await ui.byTestId('login-username').fill(ADMIN.username);
      await ui.byTestId('login-password').fill(ADMIN.password);
      await ui.byTestId('login-submit').click();
      await ui.byTestId('page-messages').waitFor();
      return { context, ui };
    }

    beforeAll(async () => {
      ensureConsoleBuilt();
      mkdirSync(SHOTS, { recursive: true });
      hook = await startHttpPeer({ status: 200, body: '{"received":true}' });
      herald = await startTestHerald({ rendererDir: RENDERER_DIST });
      const hosted = await herald.createChannel('hosted', {}, CHANNEL);
      const webhook = await herald.createChannel('webhook', { url: `${hook.url}/h` }, 'Ops hook');
      ({ token } = await herald.createTask('Disk watch', [
        { channelId: hosted.id, contentType: 'markdown' },
        { channelId: webhook.id, contentType: 'text' },
      ]));
      await herald.signedInAs('viewer', VIEWER);
      await send('Backup finished on backup-01');
      await send(LONG_TITLE);
      await hook.waitForRequests(sent);
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await herald?.close(true);
      await hook?.close();
    });

    for (const { code, browser: browserLocale, words } of LOCALES) {
      it(`${code}: at 390 × 844 the header keeps one line and the menu opens as a drawer and navigates`, async () => {
        const { context, ui } = await open(PHONE, browserLocale);
        try {
          const header = await box(ui.page.locator('.console__header'));
          expect(header.height).toBe(56);
          // Every control of the header sits within its one line and on the screen.
          for (const id of [
            'nav-menu',
            'live-status',
            'locale-switch',
            'nav-account',
            'current-role',
            'sign-out',
          ]) {
            const control = await box(ui.byTestId(id));
            expect(control.y, id).toBeGreaterThanOrEqual(header.y);
            expect(control.y + control.height, id).toBeLessThanOrEqual(header.y + header.height);
            expect(control.x, id).toBeGreaterThanOrEqual(0);
            expect(control.x + control.width, id).toBeLessThanOrEqual(PHONE.width);
          }
          expect(await ui.byTestId('nav-menu').getAttribute('aria-label')).toBe(words.nav.menu);
          // No sidebar beside the page: its links are in the closed menu.
          expect(await ui.byTestId('nav-messages').count()).toBe(0);
          const main = await box(ui.page.locator('.console__main'));
          expect(main.x).toBe(0);
          expect(main.width).toBe(PHONE.width);

          for (const name of ['logs', 'channels', 'users', 'messages'] as const) {
            await ui.byTestId('nav-menu').click();
            const drawer = ui.byTestId('nav-drawer');
            await drawer.waitFor();
            expect(await ui.byTestId('nav-menu').getAttribute('aria-expanded')).toBe('true');
            await ui.byTestId(`nav-${name}`).click();
            await ui.byTestId(`page-${name}`).waitFor();
            await drawer.waitFor({ state: 'hidden' });
            expect(await ui.byTestId(`nav-${name}`).isVisible()).toBe(false);
          }
        } finally {
          await context.close();
        }
      });

      it(`${code}: at 390 × 844 messages, logs, channels and users are cards with their fields, and no page scrolls sideways`, async () => {
        const { context, ui } = await open(PHONE, browserLocale);
        const { page } = ui;
        const card = (listTestId: string, text: string) =>
          ui.byTestId(listTestId).getByTestId('list-card').filter({ hasText: text });
        const labels = (c: Locator) => c.locator('dt').allTextContents();
        try {
          await ui.goto('/messages');
          await ui.byTestId('page-messages').waitFor();
          expect(await ui.byTestId('messages-table').getAttribute('data-mode')).toBe('cards');
          // The page's frame comes before its first page of messages: wait for the cards.
          await expect
            .poll(() => ui.byTestId('messages-table').getByTestId('list-card').count())
            .toBe(sent);
          const message = card('messages-table', LONG_TITLE);
          expect(await message.getByTestId('message-row-title').textContent()).toBe(LONG_TITLE);
          // The ID means nothing on a phone; the content and the time do.
          expect(await labels(message)).toEqual([words.messages.content, words.common.createdAt]);
          expect(await message.locator('dd').first().textContent()).toContain('web-3');
          await message.getByTestId('message-detail').waitFor();
          expect(await sideways(page)).toEqual({ page: 0, main: 0 });
          // A card's box stays within the screen, long title and all.
          const messageBox = await box(message);
          expect(messageBox.x + messageBox.width).toBeLessThanOrEqual(PHONE.width);

          await ui.goto('/logs');
          await ui.byTestId('page-logs').waitFor();
          const log = card('logs-table', LONG_TITLE);
          // As on the messages page, the frame comes before the first page of sends.
          await log.waitFor();
          const logLabels = await labels(log);
          for (const label of [
            words.common.time,
            words.logs.source,
            words.logs.status,
            words.logs.deliveryCounts,
          ]) {
            expect(logLabels).toContain(label);
          }
          // Sent without a priority: the priority line, which would be empty, is not shown.
          expect(await log.locator('dt:visible').allTextContents()).not.toContain(
            words.logs.priority,
          );
          expect(await log.textContent()).toContain('Disk watch');
          await log.getByTestId('log-detail').waitFor();
          expect(await sideways(page)).toEqual({ page: 0, main: 0 });

          await ui.goto('/channels');
          await ui.byTestId('page-channels').waitFor();
          const channel = card('channel-table', CHANNEL);
          expect(await channel.locator('.list-card__title').textContent()).toBe(CHANNEL);
          expect(await labels(channel)).toContain(words.channels.type);
          expect(await labels(channel)).toContain(words.channels.usedBy);
          expect(await channel.textContent()).toContain('Disk watch');
          await channel.getByTestId('channel-edit').waitFor();
          expect(await sideways(page)).toEqual({ page: 0, main: 0 });

          await ui.goto('/users');
          await ui.byTestId('page-users').waitFor();
          const viewer = card('user-table', VIEWER);
          expect(await viewer.locator('.list-card__title').textContent()).toContain(VIEWER);
          expect(await labels(viewer)).toContain(words.users.role);
          expect(await viewer.getByTestId(`user-role-tag-${VIEWER}`).textContent()).toBe(
            words.users.roles.viewer,
          );
          await viewer.getByTestId('user-edit').waitFor();
          expect(await sideways(page)).toEqual({ page: 0, main: 0 });
        } finally {
          await context.close();
        }
      });

      it(`${code}: at 390 × 844 the reader lists and opens a message, whole words and all`, async () => {
        await send(`Reader check (${code})`);
        const { context, ui } = await open(PHONE, browserLocale);
        const { page } = ui;
        try {
          await ui.goto('/messages');
          const newest = ui
            .byTestId('messages-table')
            .getByTestId('list-card')
            .filter({ hasText: `Reader check (${code})` });
          await newest.getByTestId('message-unread-dot').waitFor();
          await ui.settled();
          await page.screenshot({ path: join(SHOTS, `phone-reader-${code}.png`) });

          // A tap anywhere on the card opens the message, as a row click does on a desktop.
          await newest.locator('dd').first().click();
          const drawer = ui.byTestId('message-drawer');
          await drawer.waitFor();
          await ui.settled();
          expect(await ui.byTestId('message-title').textContent()).toBe(`Reader check (${code})`);
          const panel = await box(page.locator('.el-drawer.rtl'));
          expect(panel.x).toBeGreaterThanOrEqual(0);
          expect(panel.x + panel.width).toBeLessThanOrEqual(PHONE.width);
          expect(await sideways(page)).toEqual({ page: 0, main: 0 });
          const overflow = await page
            .locator('.el-drawer.rtl .el-drawer__body')
            .evaluate((body) => {
              const b = body as unknown as Measured;
              return b.scrollWidth - b.clientWidth;
            });
          expect(overflow).toBe(0);
          await ui.byTestId('message-copy-link').click();
          await ui.byTestId('message-share-url').waitFor();
          await ui.settled();
          await page.screenshot({ path: join(SHOTS, `phone-message-${code}.png`) });
          const help = ui.byTestId('message-share').locator('.msg__share-help');
          expect(await help.textContent()).toBe(words.messages.shareLinkHelp);
          // Chinese breaks between any two characters; an English word must stay whole.
          if (code === 'en') expect((await textLines(help)).broken).toEqual([]);
        } finally {
          await context.close();
        }
      });

      it(`${code}: at 1440 × 900 no menu entry wraps, the invite choice and help text fit, and toasts leave the header's controls uncovered`, async () => {
        await send(`Unread on a wide screen (${code})`);
        const { context, ui } = await open(DESKTOP, browserLocale);
        const { page } = ui;
        try {
          // Hosted messages carries the unread badge: the longest entry, on one line like the rest.
          await ui.byTestId('nav-unread-count').waitFor();
          const single = (await box(ui.byTestId('nav-dashboard'))).height;
          const entries = await page.locator('nav a[data-testid^="nav-"]').all();
          expect(entries.length).toBeGreaterThanOrEqual(10);
          for (const entry of entries) {
            const name = await entry.getAttribute('data-testid');
            expect((await box(entry)).height, name ?? '').toBe(single);
            const text = entry.locator('.sidebar__link-text');
            expect((await textLines(text)).lines, `${name} wraps`).toBe(1);
            const cut = await text.evaluate((span) => {
              const t = span as unknown as Measured;
              return t.scrollWidth - t.clientWidth;
            });
            expect(cut, `${name} is cut short`).toBe(0);
          }

          const controls = async () =>
            Promise.all(
              ['locale-switch', 'nav-account', 'current-role', 'sign-out', 'live-status'].map(
                async (id) => ({ id, box: await box(ui.byTestId(id)) }),
              ),
            );
          const header = await box(page.locator('.console__header'));
          const expectUncovered = async (toast: Box) => {
            expect(toast.y).toBeGreaterThanOrEqual(header.y + header.height);
            for (const control of await controls()) {
              expect(overlaps(toast, control.box), `covers ${control.id}`).toBe(false);
            }
          };

          // A success toast ("Marked … read")…
          await ui.nav('messages');
          await ui.byTestId('messages-read-all').click();
          const message = page.locator('.el-message').first();
          await message.waitFor();
          await ui.settled();
          await expectUncovered(await box(message));

          // …and the notification of a message arriving while another page than the reader shows.
          await ui.nav('channels');
          await send(`Arrives elsewhere (${code})`);
          const notification = page.locator('.el-notification').first();
          await notification.waitFor();
          await ui.settled();
          expect(await notification.textContent()).toContain(`Arrives elsewhere (${code})`);
          await expectUncovered(await box(notification));

          // The invite choice of a new account wraps inside its dialog.
          await ui.nav('users');
          await ui.byTestId('user-create').click();
          const dialog = page.locator('.el-dialog', { has: ui.byTestId('user-how') });
          await dialog.waitFor();
          await ui.settled();
          const dialogBox = await box(dialog);
          for (const id of ['user-how-invite', 'user-how-password']) {
            const option = await box(ui.byTestId(id));
            expect(option.x + option.width, id).toBeLessThanOrEqual(dialogBox.x + dialogBox.width);
          }
          await ui.closeOverlay(dialog);

          // The hook secret's help reads as a paragraph, not double-spaced.
          await ui.nav('templates');
          await ui.byTestId('template-create').click();
          await ui.byTestId('template-dialog').waitFor();
          const help = page
            .locator('.el-form-item__content', { has: ui.byTestId('template-hook-secret') })
            .locator('.muted');
          await help.scrollIntoViewIfNeeded();
          const spacing = await help.evaluate((element) => {
            const style = (
              globalThis as unknown as {
                getComputedStyle(e: unknown): { lineHeight: string; fontSize: string };
              }
            ).getComputedStyle(element);
            return parseFloat(style.lineHeight) / parseFloat(style.fontSize);
          });
          expect(spacing).toBeLessThanOrEqual(1.6);
        } finally {
          await context.close();
        }
      });
    }

    it('threw no error in any page', () => {
      expect(pageErrors).toEqual([]);
    });

    afterAll(() => {
      // docs/console.md shows the reader on a phone; refreshed on request only, so a test run
      // never leaves tracked files changed.
      if (process.env.HERALD_UPDATE_SCREENSHOTS !== '1') return;
      const docs = join(ROOT, 'docs/screenshots');
      mkdirSync(docs, { recursive: true });
      copyFileSync(join(SHOTS, 'phone-reader-en.png'), join(docs, 'console-reader-phone.png'));
    });
  },
);
