import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { type ConsolePage, signedInConsole } from './console-page';
import { chromiumAvailable, ensureConsoleBuilt, launchChromium, RENDERER_DIST } from './chromium';

const haveChromium = chromiumAvailable('digests e2e');

/**
 * Digests in the console (issue 46 §2), in Chromium: a template's rule made on its Digest dialog
 * in English (a bad cron expression refused under the form first), then in Chinese a collected
 * send in the send log, its status and the digest it waits for.
 */
describe.skipIf(!haveChromium)('digests in Chromium', { shuffle: false }, () => {
  let herald: TestHerald;
  let browser: Browser;
  let ui: ConsolePage;
  let templateId = 0;
  let token = '';
  let pageErrors: string[] = [];

  beforeAll(async () => {
    ensureConsoleBuilt();
    herald = await startTestHerald({ rendererDir: RENDERER_DIST });
    const inbox = await herald.createChannel('hosted', {}, 'Inbox');
    ({
      token,
      template: { id: templateId },
    } = await herald.createTemplate({ name: 'Nightly backups', text: 'done' }, [
      { channelId: inbox.id, contentType: 'text' },
    ]));
    browser = await launchChromium();
    ({ ui, pageErrors } = await signedInConsole(browser, herald.url, ADMIN, {
      timezoneId: 'Europe/Berlin',
    }));
  });
  afterAll(async () => {
    await browser?.close();
    await herald?.close(true);
  });

  it('sets a template’s digest on its dialog, in English', async () => {
    await ui.nav('templates');
    await ui.row('template-table', 'Nightly backups').getByTestId('template-digest').click();
    await ui.byTestId('digest-dialog').waitFor();
    await ui.byTestId('digest-enabled').click();
    await ui.byTestId('digest-mode').getByText('Until a cron time').click();
    await ui.byTestId('digest-cron').fill('0 25 * * *');
    await ui.byTestId('digest-save').click();
    await expect
      .poll(async () => ui.byTestId('digest-error').textContent())
      .toContain('Cron expression: is not valid');
    await ui.byTestId('digest-cron').fill('0 9 * * *');
    await ui.byTestId('digest-save').click();
    await ui.byTestId('digest-dialog').waitFor({ state: 'hidden' });
    expect(await herald.console.ok('GET', `/templates/${templateId}/digest`)).toEqual({
      rule: {
        windowMinutes: null,
        cron: '0 9 * * *',
        timezone: 'Europe/Berlin',
        priorityThreshold: 5,
        titleLimit: 20,
      },
    });
  });

  it('shows a collected send and its digest in the send log, in Chinese', async () => {
    const sent = await herald.sendV2({ token, title: 'backup of db-1' });
    expect(sent.body.data.digest.until).toBeDefined();
    await ui.choose('locale-switch', { testId: 'locale-option-zh-CN' });
    await ui.nav('logs');
    const row = ui.row('logs-table', 'backup of db-1');
    await expect.poll(async () => row.textContent()).toContain('已汇总');
    await row.getByTestId('log-detail').click();
    await ui.byTestId('log-collected-into').waitFor();
    expect(await ui.byTestId('log-collected-into').textContent()).toContain('将于');
    expect(pageErrors).toEqual([]);
  });
});
