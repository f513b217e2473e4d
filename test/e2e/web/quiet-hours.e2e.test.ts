import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { type ConsolePage, signedInConsole } from './console-page';
import { chromiumAvailable, ensureConsoleBuilt, launchChromium, RENDERER_DIST } from './chromium';

const haveChromium = chromiumAvailable('quiet hours e2e');

/**
 * Quiet hours in the console (issue 46 §1), in Chromium: a channel's rule made on its dialog in
 * English, then the person's own under Account in Chinese; each read back from the API.
 */
describe.skipIf(!haveChromium)('quiet hours in Chromium', { shuffle: false }, () => {
  let herald: TestHerald;
  let browser: Browser;
  let ui: ConsolePage;
  let channelId = 0;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    ensureConsoleBuilt();
    herald = await startTestHerald({ rendererDir: RENDERER_DIST });
    channelId = (await herald.createChannel('hosted', {}, 'Ops')).id;
    browser = await launchChromium();
    ({ ui, pageErrors } = await signedInConsole(browser, herald.url, ADMIN, {
      timezoneId: 'Europe/Berlin',
    }));
  });
  afterAll(async () => {
    await browser?.close();
    await herald?.close(true);
  });

  it('makes a channel’s quiet hours on its dialog, in English', async () => {
    await ui.nav('channels');
    await ui.row('channel-table', 'Ops').getByTestId('channel-edit').click();
    await ui.byTestId('channel-dialog').waitFor();
    await ui.byTestId('quiet-open').click();
    await ui.byTestId('quiet-add').click();
    await ui.byTestId('quiet-start').fill('23:00');
    await ui.byTestId('quiet-end').fill('6:00');
    await ui.byTestId('quiet-action').getByText('Deliver silently').click();
    await ui.byTestId('quiet-save').click();
    // The server's refusal, under the form: 6:00 is not HH:MM.
    await expect
      .poll(async () => ui.byTestId('quiet-error').textContent())
      .toContain('end: must be a time of day');
    await ui.byTestId('quiet-end').fill('06:00');
    await ui.byTestId('quiet-save').click();
    await ui.byTestId('quiet-rule').waitFor();
    expect(await ui.byTestId('quiet-rule').textContent()).toContain('Every day 23:00–06:00');
    expect(await ui.byTestId('quiet-rule').textContent()).toContain('Europe/Berlin');
    expect(await ui.byTestId('quiet-preview').textContent()).toMatch(/A message sent now/);
    const { items } = await herald.console.ok(
      'GET',
      `/quiet-hours?ownerType=channel&ownerId=${channelId}`,
    );
    expect(items).toMatchObject([
      { start: '23:00', end: '06:00', action: 'soften', timezone: 'Europe/Berlin' },
    ]);
  });

  it('makes the person’s own quiet hours under Account, in Chinese', async () => {
    await ui.page.keyboard.press('Escape');
    await ui.choose('locale-switch', { testId: 'locale-option-zh-CN' });
    await ui.nav('account');
    const card = ui.byTestId('account-quiet-hours');
    await card.getByText('添加免打扰时段').click();
    await card.getByText('周六').click();
    await card.getByText('周日').click();
    await ui.byTestId('quiet-action').getByText('暂缓').click();
    await ui.byTestId('quiet-save').click();
    await ui.byTestId('quiet-rule').waitFor();
    expect(await ui.byTestId('quiet-rule').textContent()).toContain('周一 周二 周三 周四 周五');
    expect(await ui.byTestId('quiet-rule').textContent()).toContain('暂缓');
    expect(await ui.byTestId('quiet-preview').textContent()).toMatch(/现在发送的消息/);
    const me = await herald.console.ok('GET', '/me');
    const { items } = await herald.console.ok(
      'GET',
      `/quiet-hours?ownerType=user&ownerId=${me.user?.id ?? me.id}`,
    );
    expect(items).toMatchObject([{ weekdays: [1, 2, 3, 4, 5], action: 'hold' }]);
    expect(pageErrors).toEqual([]);
  });
});
