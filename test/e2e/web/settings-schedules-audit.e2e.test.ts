import { type Browser, type Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ConsolePage } from './console-page';
import { chromiumAvailable, ensureConsoleBuilt, launchChromium, RENDERER_DIST } from './chromium';

const haveChromium = chromiumAvailable('settings, schedules and audit e2e');

/** The little of an input the fit check reads (this file is compiled without the DOM lib). */
interface InputLike {
  placeholder: string;
  clientWidth: number;
  ownerDocument: {
    defaultView: {
      getComputedStyle(el: unknown): { font: string; paddingLeft: string; paddingRight: string };
    };
    createElement(tag: 'canvas'): {
      getContext(kind: '2d'): { font: string; measureText(text: string): { width: number } };
    };
  };
}

/** Whether an input's placeholder fits in its box: its drawn width against the room inside. */
const placeholderFits = (input: Locator) =>
  input.evaluate((node) => {
    const el = node as unknown as InputLike;
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    const context = el.ownerDocument.createElement('canvas').getContext('2d');
    context.font = style.font;
    const needed = context.measureText(el.placeholder).width;
    const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return { placeholder: el.placeholder, needed, room, fits: needed <= room };
  });

/** Text as laid out: runs of white space as one space. */
const spaced = async (locator: Locator) =>
  ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();

/**
 * An administrator's first look at three pages (issue 41 §11–13), at 1440 × 900 in English,
 * then in Chinese: Settings saves every card the same way and shows delays in minutes and
 * seconds; a new schedule starts on the template and says when it runs in words; the audit log
 * reads as sentences with names that outlive a rename.
 */
describe.skipIf(!haveChromium)(
  'settings, schedules and the audit log in Chromium',
  // One journey: each step builds on the one before.
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let browser: Browser;
    let ui: ConsolePage;
    let templateId = 0;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      ensureConsoleBuilt();
      herald = await startTestHerald({ rendererDir: RENDERER_DIST });
      const ops = await herald.createChannel('hosted', {}, 'Ops');
      const { template } = await herald.console.createTemplate({ name: 'Nightly', text: 'hi' }, [
        { channelId: ops.id, contentType: 'text' },
      ]);
      templateId = template.id;
      // A test Herald retries within milliseconds; a person's starts at a minute.
      await herald.console.ok('PUT', '/settings', {
        retry: { maxAttempts: 6, baseDelayMs: 60_000, maxDelayMs: 960_000, jitter: 0.2 },
      });
      browser = await launchChromium();
      const context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
        locale: 'en-US',
        timezoneId: 'UTC',
      });
      const page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      ui = new ConsolePage(page, herald.url);
      await ui.goto('/');
      await ui.signIn(ADMIN.username, ADMIN.password);
    });

    afterAll(async () => {
      await browser?.close();
      await herald?.close(true);
    });

    it('Settings shows delays in minutes and seconds and saves each card only on its Save', async () => {
      await ui.nav('settings');
      const minutes = ui.byTestId('settings-base-delay-minutes').locator('input');
      const seconds = ui.byTestId('settings-base-delay-seconds').locator('input');
      await minutes.waitFor();
      expect(await minutes.inputValue()).toBe('1');
      expect(await seconds.inputValue()).toBe('0');
      expect(await ui.page.getByText('(ms)').count()).toBe(0);
      await seconds.fill('30');
      await seconds.press('Tab');
      await ui.byTestId('settings-save').click();
      await expect
        .poll(async () => (await herald.console.ok('GET', '/settings')).retry.baseDelayMs)
        .toBe(90_000);

      // A switch is a draft like any field: nothing changes until its card's Save.
      await ui.byTestId('settings-show-remote-images').click();
      await ui.page.waitForTimeout(300);
      expect((await herald.console.ok('GET', '/settings')).showRemoteImages).toBe(false);
      await ui.byTestId('settings-reader-save').click();
      await expect
        .poll(async () => (await herald.console.ok('GET', '/settings')).showRemoteImages)
        .toBe(true);
    });

    it('the backup card words the key one way, and the import picks its file with a styled upload', async () => {
      expect(await spaced(ui.byTestId('backup-download-include-key'))).toBe(
        'Include the server key',
      );
      expect(await spaced(ui.byTestId('backup-include-key'))).toBe('Include the server key');
      expect(await ui.page.getByText('Leave the server key out').count()).toBe(0);

      const choose = ui.byTestId('mn-import-choose');
      expect(await choose.getAttribute('class')).toContain('el-button');
      expect(await choose.isVisible()).toBe(true);
      // The browser's own file input is there for the chooser, hidden.
      const input = ui.byTestId('mn-import-upload').locator('input[type="file"]');
      expect(await input.isVisible()).toBe(false);
      await input.setInputFiles({
        name: 'database.db',
        mimeType: 'application/octet-stream',
        buffer: Buffer.from('not a database'),
      });
      await ui.byTestId('mn-import-upload').getByText('database.db').waitFor();
      expect(await ui.byTestId('mn-import-preview').isEnabled()).toBe(true);
    });

    it('a new schedule starts on the template, presets read in words, and the list says when in the schedule’s zone', async () => {
      await ui.byTestId('nav-schedules').click();
      await ui.byTestId('page-schedules').waitFor();
      await ui.byTestId('schedule-create').click();
      const dialog = ui.byTestId('schedule-dialog');
      await dialog.waitFor();
      await ui.settled();
      expect(await spaced(ui.byTestId('schedule-source').locator('.is-active'))).toBe(
        'Template (V2)',
      );
      await expect.poll(() => spaced(ui.byTestId('schedule-template'))).toContain('Nightly');

      const preset = ui.byTestId('schedule-preset-1');
      expect(await spaced(preset)).toBe('Every 5 minutes');
      await preset.hover();
      await ui.page.locator('.el-popper:visible', { hasText: '*/5 * * * *' }).waitFor();
      await preset.click();
      expect(await ui.byTestId('schedule-cron').inputValue()).toBe('*/5 * * * *');

      await ui.byTestId('schedule-name').fill('Morning report');
      await ui.byTestId('schedule-cron').fill('0 9 * * 1-5');
      await ui.byTestId('schedule-timezone').click();
      await ui.page.keyboard.type('Asia/Shanghai');
      await ui.page
        .locator('.el-select-dropdown__item:visible', { hasText: 'Asia/Shanghai' })
        .first()
        .click();
      await ui.byTestId('schedule-title').fill('Good morning');
      await ui.byTestId('schedule-save').click();
      await ui.expectClosed(dialog, 'schedule-error');

      const when = ui.row('schedule-table', 'Morning report').getByTestId('schedule-when');
      await expect.poll(() => spaced(when)).toBe('Weekdays 09:00 Asia/Shanghai');
      await when.hover();
      await ui.page.locator('.el-popper:visible', { hasText: '0 9 * * 1-5' }).waitFor();
    });

    it('the audit log reads as sentences with names that stay after a rename, a create folded', async () => {
      // Renamed after the entries were written: they keep the name the template had.
      await herald.console.ok('PATCH', `/templates/${templateId}`, { name: 'Nightly renamed' });
      await ui.nav('audit');
      const linked = ui.row('audit-table', 'linked template Nightly to channel Ops');
      await linked.waitFor();
      expect(await spaced(linked.getByTestId('audit-sentence'))).toBe(
        `${ADMIN.username} linked template Nightly to channel Ops`,
      );
      expect(await ui.page.getByText('templateId').count()).toBe(0);

      const created = ui.row('audit-table', 'created the schedule Morning report');
      const details = created.getByTestId('audit-details');
      const cron = details.locator('li', { hasText: 'cron: 0 9 * * 1-5' });
      expect(await cron.isVisible()).toBe(false);
      await details.locator('summary').click();
      await cron.waitFor();
      expect(await details.locator('li', { hasText: 'template: Nightly' }).count()).toBe(1);

      const search = await placeholderFits(ui.byTestId('audit-search'));
      expect(search, JSON.stringify(search)).toMatchObject({ fits: true });
    });

    it('says the same in Chinese', async () => {
      await ui.choose('locale-switch', { testId: 'locale-option-zh-CN' });
      const linked = ui.row('audit-table', '关联到渠道 Ops');
      await linked.waitFor();
      expect(await spaced(linked.getByTestId('audit-sentence'))).toBe(
        `${ADMIN.username} 将模板 Nightly 关联到渠道 Ops`,
      );
      const search = await placeholderFits(ui.byTestId('audit-search'));
      expect(search, JSON.stringify(search)).toMatchObject({ fits: true });

      await ui.byTestId('nav-schedules').click();
      const when = ui.row('schedule-table', 'Morning report').getByTestId('schedule-when');
      await expect.poll(() => spaced(when)).toBe('工作日 09:00 Asia/Shanghai');
      await ui.byTestId('schedule-create').click();
      await ui.byTestId('schedule-dialog').waitFor();
      expect(await spaced(ui.byTestId('schedule-preset-1'))).toBe('每 5 分钟');
      await ui.closeOverlay(ui.byTestId('schedule-dialog'));

      await ui.nav('settings');
      const delay = ui.byTestId('settings-base-delay');
      await delay.waitFor();
      expect(await spaced(delay)).toContain('分');
      expect(await spaced(delay)).toContain('秒');
      expect(await ui.byTestId('settings-base-delay-seconds').locator('input').inputValue()).toBe(
        '30',
      );
      expect(await spaced(ui.byTestId('backup-download-include-key'))).toBe('包含服务器密钥');
      expect(await spaced(ui.byTestId('backup-include-key'))).toBe('包含服务器密钥');
      expect(await spaced(ui.byTestId('mn-import-choose'))).toBe('选择数据库文件');
      expect(pageErrors).toEqual([]);
    });
  },
);
