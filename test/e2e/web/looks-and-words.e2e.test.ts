import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AA_TEXT, contrastRatio } from '../../../renderer/src/lib/contrast';
import { startHttpPeer, type HttpPeer } from '../../helpers/recording-peer';
import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ConsolePage } from './console-page';
import { chromiumAvailable, ensureConsoleBuilt, launchChromium, RENDERER_DIST } from './chromium';

const haveChromium = chromiumAvailable('looks and words e2e');

/** A desktop Chrome on Linux, as a teammate's browser would say it (headless Chromium says HeadlessChrome). */
const CHROME_ON_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const URGENT = 'URGENT: disk full on db-2';
const NORMAL = 'Nightly backup finished';

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

interface Measured {
  text: string;
  color: string;
  background: string;
}

/** The little of the page's DOM measureInPage() uses (this file is compiled without the DOM lib). */
interface PageElement {
  textContent: string | null;
  parentElement: PageElement | null;
  getClientRects(): { length: number };
}
interface PageGlobals {
  getComputedStyle(el: PageElement): { color: string; backgroundColor: string };
}

/**
 * Run in the page on elements: each visible one's text colour and the colour under it, both
 * opaque (translucent backgrounds of its ancestors painted over one another, as the eye sees
 * them). Self-contained: Playwright sends its source to the page.
 */
function measureInPage(elements: unknown[]): Measured[] {
  const page = globalThis as unknown as PageGlobals;
  const parse = (c: string): number[] => {
    const m = /rgba?\(([^)]*)\)/.exec(c);
    if (!m) throw new Error(`colour not in rgb(): ${c}`);
    const p = m[1]!
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    return [p[0]!, p[1]!, p[2]!, p.length > 3 ? p[3]! : 1];
  };
  const paint = (top: number[], under: number[]) =>
    [0, 1, 2].map((i) => top[i]! * top[3]! + under[i]! * (1 - top[3]!));
  const css = (rgb: number[]) => `rgb(${rgb.map((v) => Math.round(v)).join(', ')})`;
  return (elements as PageElement[])
    .filter((el) => el.getClientRects().length > 0 && (el.textContent ?? '').trim() !== '')
    .map((el) => {
      const layers: number[][] = [];
      for (let node: PageElement | null = el; node; node = node.parentElement) {
        const bg = parse(page.getComputedStyle(node).backgroundColor);
        if (bg[3]! > 0) layers.push(bg);
        if (bg[3]! >= 1) break;
      }
      let under = [255, 255, 255];
      for (const layer of layers.reverse()) under = paint(layer, under);
      const text = paint(parse(page.getComputedStyle(el).color), under);
      return {
        text: (el.textContent ?? '').trim().slice(0, 40),
        color: css(text),
        background: css(under),
      };
    });
}

/**
 * What a person sees in real Chromium: colours that reach WCAG AA in light and dark, on a desktop
 * and a phone; Latin text in a Latin font; and the words of issue 41 §15 (refusals as sentences,
 * sessions by browser, urgent messages, an empty inbox, a redirect explained, deletes disabled
 * with their reason).
 */
describe.skipIf(!haveChromium)(
  'how the console looks and what it says, in Chromium',
  // One story: each step builds on the one before.
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let hook: HttpPeer;
    let browser: Browser;
    let viewer: { username: string; password: string };
    const contexts: BrowserContext[] = [];
    const pageErrors: string[] = [];

    const open = async (
      viewport = DESKTOP,
      colorScheme: 'light' | 'dark' = 'light',
      locale = 'en-US',
    ): Promise<ConsolePage> => {
      const context = await browser.newContext({
        viewport,
        colorScheme,
        locale,
        userAgent: CHROME_ON_LINUX,
      });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      return new ConsolePage(page, herald.url);
    };

    const signedIn = async (viewport = DESKTOP, scheme: 'light' | 'dark' = 'light') => {
      const c = await open(viewport, scheme);
      await c.goto('/');
      await c.signIn(ADMIN.username, ADMIN.password);
      return c;
    };

    const measure = (page: Page, selector: string): Promise<Measured[]> =>
      page.locator(selector).evaluateAll(measureInPage);

    /** The text of the tooltip a trigger shows now (Element Plus ties them with aria-describedby). */
    const tooltipOf = async (trigger: Locator) => {
      const id = await trigger.getAttribute('aria-describedby');
      if (!id) return '';
      const tip = trigger.page().locator(`[id="${id}"]`);
      return (await tip.getAttribute('aria-hidden')) === 'false' ? tip.textContent() : '';
    };

    /** Every measured text below AA, with its colours, so a failure says what and where. */
    const belowAA = (measured: Measured[]) =>
      measured
        .map((m) => ({ ...m, ratio: Number(contrastRatio(m.color, m.background).toFixed(2)) }))
        .filter((m) => m.ratio < AA_TEXT);

    beforeAll(async () => {
      ensureConsoleBuilt();
      hook = await startHttpPeer({ status: 200, body: '{}' });
      herald = await startTestHerald({ rendererDir: RENDERER_DIST });
      const hosted = await herald.createChannel('hosted', {}, 'Team reader');
      const webhook = await herald.createChannel('webhook', { url: `${hook.url}/h` }, 'Ops hook');
      await herald.createChannel('webhook', { url: `${hook.url}/spare` }, 'Spare hook');
      const { token } = await herald.createTask('Backups', [
        { channelId: hosted.id, contentType: 'text' },
        { channelId: webhook.id, contentType: 'text' },
      ]);
      for (const [title, priority] of [
        [NORMAL, 3],
        [URGENT, 5],
      ] as const) {
        const sent = await herald.sendV1({ token, title, text: `${title}.`, priority });
        expect(sent.body.code).toBe(200);
      }
      await hook.waitForRequests(2);
      const teammate = await herald.signedInAs('viewer', 'vera');
      viewer = { username: 'vera', password: teammate.password };
      browser = await launchChromium();
    });

    afterAll(async () => {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser?.close();
      await herald?.close(true);
      await hook?.close();
    });

    it('a wrong password is refused in a sentence, in English and in Chinese', async () => {
      for (const [locale, sentence] of [
        ['en-US', 'The username or password is not correct.'],
        ['zh-CN', '用户名或密码不正确。'],
      ] as const) {
        const c = await open(DESKTOP, 'light', locale);
        await c.goto('/');
        await c.byTestId('login-form').waitFor();
        await c.byTestId('login-username').fill(ADMIN.username);
        await c.byTestId('login-password').fill('not the password');
        await c.byTestId('login-submit').click();
        await expect.poll(() => c.byTestId('login-error').textContent()).toContain(sentence);
        expect(await c.byTestId('login-error').textContent()).not.toMatch(/\w+: /);
      }
    });

    for (const [size, viewport] of [
      ['1440 × 900', DESKTOP],
      ['390 × 844', PHONE],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        it(`links, table headers and tags reach 4.5:1 (${scheme}, ${size})`, async () => {
          const c = await signedIn(viewport, scheme);
          const { page } = c;
          const htmlClass = (await page.locator('html').getAttribute('class')) ?? '';
          expect(htmlClass.split(' ').includes('dark')).toBe(scheme === 'dark');

          await c.goto('/channels');
          await c.byTestId('page-channels').waitFor();
          await page.getByText('Ops hook').first().waitFor();
          const links = await measure(page, '.el-button.is-link:not(.is-disabled)');
          const headers = await measure(page, '.el-table__header th .cell');
          const tags = await measure(page, '.el-tag');
          const roleTag = await measure(page, '[data-testid="current-role"]');
          const labels = await measure(page, '.list-card__field dt, .muted');

          await c.goto('/logs');
          await page.getByText(URGENT).first().waitFor();
          const logTags = await measure(page, '.el-tag');
          const logLinks = await measure(page, '.el-button.is-link:not(.is-disabled)');

          // Filled and plain buttons: a plain one's words on its pale fill (the drawer's
          // Delete is a plain danger button, once drawn red on red).
          await c.goto('/messages');
          await page.getByText(URGENT).first().click();
          await c.byTestId('message-delete').waitFor();
          const buttons = await measure(
            page,
            '.el-button:not(.is-disabled, .is-link, .is-text):visible',
          );
          expect(buttons.map((m) => m.text)).toEqual(
            expect.arrayContaining([expect.stringMatching(/Delete/)]),
          );

          expect(links.length, 'link buttons measured').toBeGreaterThan(0);
          expect(tags.length + logTags.length, 'tags measured').toBeGreaterThan(2);
          if (viewport === DESKTOP) {
            // The phone shows lists as cards (no table header) and the role in its menu.
            expect(headers.length, 'table headers measured').toBeGreaterThan(3);
            expect(roleTag.map((m) => m.text)).toEqual(['Admin']);
          }
          expect(
            belowAA([
              ...links,
              ...headers,
              ...tags,
              ...roleTag,
              ...labels,
              ...logTags,
              ...logLinks,
              ...buttons,
            ]),
          ).toEqual([]);
        });
      }
    }

    it('Latin text is drawn in a Latin font, not Noto Sans CJK', async () => {
      const c = await signedIn();
      await c.goto('/channels');
      await c.page.getByText('Ops hook').first().waitFor();
      const cdp = await c.page.context().newCDPSession(c.page);
      await cdp.send('DOM.enable');
      await cdp.send('CSS.enable');
      const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
      const fontsOf = async (selector: string) => {
        const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
        expect(nodeId, selector).toBeGreaterThan(0);
        const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
        return fonts.map((f) => f.familyName);
      };
      for (const selector of ['.page-header h1', '[data-testid="current-user"]']) {
        const fonts = await fontsOf(selector);
        expect(fonts.length, selector).toBeGreaterThan(0);
        expect(
          fonts.filter((f) => /CJK/i.test(f)),
          selector,
        ).toEqual([]);
      }
    });

    it('the Account page names a session "Chrome on Linux"', async () => {
      const c = await signedIn();
      await c.goto('/account');
      const agent = c.byTestId('session-current').getByTestId('session-agent');
      await expect.poll(() => agent.textContent()).toBe('Chrome on Linux');
      expect(await agent.getAttribute('title')).toBe(CHROME_ON_LINUX);
    });

    it('a channel in use and the last administrator cannot be deleted, and say why', async () => {
      const c = await signedIn();
      await c.goto('/channels');
      const inUse = c.row('channel-table', 'Ops hook');
      await inUse.waitFor();
      expect(await inUse.getByTestId('channel-delete').isDisabled()).toBe(true);
      expect(
        await c.row('channel-table', 'Spare hook').getByTestId('channel-delete').isDisabled(),
      ).toBe(false);
      await inUse.getByTestId('disabled-reason').hover();
      await expect
        .poll(() => tooltipOf(inUse.getByTestId('disabled-reason')))
        .toContain('Used by task “Backups”: remove those instances before deleting the channel.');

      await c.goto('/users');
      const me = c.row('user-table', ADMIN.username);
      await me.waitFor();
      expect(await me.getByTestId('user-delete').isDisabled()).toBe(true);
      expect(
        await c.row('user-table', viewer.username).getByTestId('user-delete').isDisabled(),
      ).toBe(false);
      await me.getByTestId('disabled-reason').focus();
      await expect
        .poll(() => tooltipOf(me.getByTestId('disabled-reason')))
        .toContain('The last administrator cannot be deleted.');
    });

    for (const [size, viewport] of [
      ['1440 × 900', DESKTOP],
      ['390 × 844', PHONE],
    ] as const) {
      it(`the reader marks the urgent message, and an empty unread inbox is all caught up (${size})`, async () => {
        const c = await signedIn(viewport);
        await c.goto('/messages');
        // A row on the desktop, a card on the phone: whatever holds the title.
        const holder = (title: string) =>
          c.page
            .locator('tr.el-table__row, .list-card')
            .filter({ has: c.page.getByTestId('message-row-title').getByText(title) });
        await holder(URGENT).first().waitFor();
        expect(await holder(URGENT).first().getAttribute('class')).toContain('is-urgent');
        expect(await holder(NORMAL).first().getAttribute('class')).not.toContain('is-urgent');
        const titleColour = async (title: string) => {
          const title0 = holder(title).first().getByTestId('message-row-title');
          const [seen] = await title0.evaluateAll(measureInPage);
          return seen?.color;
        };
        expect(await titleColour(URGENT)).not.toBe(await titleColour(NORMAL));
        expect(
          belowAA(await measure(c.page, '.is-urgent [data-testid="message-row-title"]')),
        ).toEqual([]);

        if (await c.byTestId('messages-read-all').isEnabled()) {
          await c.byTestId('messages-read-all').click();
          await expect.poll(() => c.byTestId('messages-read-all').isDisabled()).toBe(true);
        }
        await c.byTestId('messages-unread-only').click();
        await expect
          .poll(() => c.page.getByText('All caught up: nothing unread.').isVisible())
          .toBe(true);
        expect(await c.page.getByText('No matches').count()).toBe(0);
      });
    }

    it('a viewer sent away from Users is told why, at 1440 × 900 and 390 × 844', async () => {
      for (const viewport of [DESKTOP, PHONE]) {
        const c = await open(viewport);
        await c.goto('/');
        await c.signIn(viewer.username, viewer.password);
        await c.goto('/users');
        await c.byTestId('page-dashboard').waitFor();
        await expect
          .poll(() => c.byTestId('redirect-notice').textContent())
          .toContain(
            'Users needs the Admin role, and you are signed in as Viewer, so you were brought to the dashboard instead.',
          );
        await c.goto('/logs');
        await c.byTestId('page-logs').waitFor();
        expect(await c.byTestId('redirect-notice').count()).toBe(0);
      }
    });

    it('raised no page errors', () => {
      expect(pageErrors).toEqual([]);
    });
  },
);
