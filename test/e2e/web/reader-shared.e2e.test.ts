import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import en from '../../../renderer/src/i18n/en';
import zhCN from '../../../renderer/src/i18n/zh-CN';
import { ADMIN, startTestHerald, type TestHerald } from '../../helpers/herald';
import { ConsolePage } from './console-page';
import {
  chromiumAvailable,
  ensureConsoleBuilt,
  launchChromium,
  RENDERER_DIST,
  ROOT,
} from './chromium';

/** The little of the page's globals used below (this file is compiled without the DOM lib). */
interface ClipboardGlobals {
  navigator: { clipboard: { readText(): Promise<string> } };
}

const haveChromium = chromiumAvailable('reader shared-mark e2e');
const SHOTS = join(ROOT, 'test-results/screenshots');

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

const INBOX = 'Ops inbox';
const PRIVATE = 'Failover on db-2';
const PUBLIC = 'Status page update';
/** What the sender typed, Markdown around it: the preview must show the words as typed. */
const MARKDOWN =
  '**db-2** failed over to 数据库-主节点 _ ! ( ) — see [the runbook](https://x.example/rb)';
const PREVIEW = 'db-2 failed over to 数据库-主节点 _ ! ( ) — see the runbook';

/**
 * The reader and public links (issue 41 §5 and §7): a hosted instance's "Public link" setting in
 * its dialog, a message shared at accept marked in the list, a private one shared and revoked
 * from its drawer, and previews that keep `db-2`, `数据库-主节点` and `_ ! ( )` as typed, at
 * 1440 × 900 in English and at 390 × 844 in Chinese.
 */
describe.skipIf(!haveChromium)(
  'the reader marks shared messages and previews what was typed',
  // One user journey: the steps build on each other's messages and links.
  { shuffle: false },
  () => {
    let herald: TestHerald;
    let browser: Browser;
    let privateToken = '';
    const pageErrors: string[] = [];

    async function open(
      viewport: { width: number; height: number },
      locale: string,
    ): Promise<{ context: BrowserContext; ui: ConsolePage }> {
      const phone = viewport.width < 768;
      const context = await browser.newContext({
        viewport,
        locale,
        colorScheme: 'light',
        deviceScaleFactor: phone ? 2 : 1,
        isMobile: phone,
        hasTouch: phone,
      });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: herald.url,
      });
      const page = await context.newPage();
      page.on('pageerror', (err) => pageErrors.push(err.message));
      const ui = new ConsolePage(page, herald.url);
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
      herald = await startTestHerald({ rendererDir: RENDERER_DIST });
      await herald.createChannel('hosted', {}, INBOX);
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await herald?.close(true);
    });

    it('1440 × 900: the instance dialog offers the public link, off, with what it means', async () => {
      const { context, ui } = await open(DESKTOP, 'en-US');
      try {
        // A task through the console, its hosted instance left private, another turned public.
        const { task, token } = await herald.createTask('Failover watch', []);
        const { task: publicTask } = await herald.createTask('Status page', []);
        privateToken = token;
        await ui.goto('/tasks');
        await ui.byTestId('page-tasks').waitFor();
        await ui.row('task-table', 'Failover watch').getByTestId('task-instances').click();
        await ui.byTestId('task-instances-drawer').waitFor();
        await ui.byTestId('instance-add').click();
        await ui.byTestId('instance-dialog').waitFor();
        await ui.choose('instance-channel', { text: INBOX });
        const toggle = ui.byTestId('instance-public-link');
        await toggle.waitFor();
        expect(await toggle.getAttribute('class')).not.toContain('is-checked');
        expect(await ui.byTestId('instance-public-link-help').textContent()).toContain(
          en.instances.publicLinkHelp,
        );
        await ui.settled();
        await ui.page.screenshot({ path: join(SHOTS, 'reader-shared-instance-dialog.png') });
        await ui.byTestId(`instance-content-type-markdown`).click();
        await ui.byTestId('instance-save').click();
        await ui.expectClosed(ui.byTestId('instance-dialog'), 'instance-error');
        await ui.row('instance-table', INBOX).waitFor();
        expect(await ui.byTestId('instance-public-link-tag').count()).toBe(0);

        // The second task's instance with the switch turned on shows the tag.
        await ui.closeOverlay(ui.byTestId('task-instances-drawer'));
        await ui.row('task-table', 'Status page').getByTestId('task-instances').click();
        await ui.byTestId('task-instances-drawer').waitFor();
        await ui.byTestId('instance-add').click();
        await ui.byTestId('instance-dialog').waitFor();
        await ui.choose('instance-channel', { text: INBOX });
        await ui.byTestId('instance-public-link').click();
        await ui.byTestId('instance-save').click();
        await ui.expectClosed(ui.byTestId('instance-dialog'), 'instance-error');
        await ui.byTestId('instance-public-link-tag').waitFor();

        const [privateInstance] = await herald.console.ok('GET', `/tasks/${task.id}/instances`);
        expect(privateInstance).toMatchObject({ contentType: 'markdown', publicLink: false });
        const [publicInstance] = await herald.console.ok(
          'GET',
          `/tasks/${publicTask.id}/instances`,
        );
        expect(publicInstance.publicLink).toBe(true);

        // The answers follow the settings made in the dialog.
        const privateSend = await herald.sendV1({ token, title: PRIVATE, markdown: MARKDOWN });
        expect(privateSend.body.data).not.toHaveProperty('hostMessageUrl');
        const { token: publicToken } = await herald.console.ok(
          'GET',
          `/tasks/${publicTask.id}/token`,
        );
        const publicSend = await herald.sendV1({
          token: publicToken,
          title: PUBLIC,
          text: 'All systems normal (db-2 back).',
        });
        expect(publicSend.body.data.hostMessageUrl).toMatch(/\/preview\/[\w-]{22}$/);
      } finally {
        await context.close();
      }
    });

    it('1440 × 900: the list marks the shared message and previews the private one as typed', async () => {
      const { context, ui } = await open(DESKTOP, 'en-US');
      try {
        const shared = ui.row('messages-table', PUBLIC);
        const unshared = ui.row('messages-table', PRIVATE);
        await shared.waitFor();
        expect(await shared.getByTestId('message-shared').textContent()).toBe(en.messages.shared);
        expect(await shared.getByTestId('message-shared').getAttribute('title')).toBe(
          en.messages.sharedHint,
        );
        expect(await unshared.getByTestId('message-shared').count()).toBe(0);
        expect(await unshared.locator('.preview').textContent()).toBe(PREVIEW);
        await ui.page.screenshot({ path: join(SHOTS, 'reader-shared-desktop.png') });

        // Sharing the private message from its drawer marks its row; revoking unmarks it.
        await unshared.getByTestId('message-detail').click();
        const drawer = ui.byTestId('message-drawer');
        await drawer.waitFor();
        await ui.settled();
        expect(await ui.byTestId('message-not-shared').textContent()).toBe(en.messages.notShared);
        const share = ui.byTestId('message-copy-link');
        expect((await share.textContent())?.trim()).toBe(en.messages.share);
        await share.click();
        await ui.byTestId('message-share-url').waitFor();
        const url = (await ui.byTestId('message-share-url').textContent()) ?? '';
        expect(url).toMatch(/\/preview\/[\w-]{22}$/);
        expect(
          await ui.page.evaluate(() =>
            (globalThis as unknown as ClipboardGlobals).navigator.clipboard.readText(),
          ),
        ).toBe(url);
        expect((await share.textContent())?.trim()).toBe(en.messages.copyLink);
        expect(await unshared.getByTestId('message-shared').count()).toBe(1);
        // The link opens the message for anyone.
        const opened = await fetch(url.replace('/preview/', '/api/public/preview/'));
        expect(opened.status).toBe(200);

        await ui.byTestId('message-revoke-link').click();
        await ui.page.locator('.el-message-box__btns .el-button--primary').click();
        await ui.byTestId('message-not-shared').waitFor();
        expect(await unshared.getByTestId('message-shared').count()).toBe(0);
        expect((await fetch(url.replace('/preview/', '/api/public/preview/'))).status).toBe(404);
        await ui.closeOverlay(drawer);
      } finally {
        await context.close();
      }
    });

    it('390 × 844 in Chinese: cards mark the shared message and keep db-2 and 数据库-主节点', async () => {
      // One more private message whose body is all Chinese, with its own hyphen.
      const sent = await herald.sendV1({
        token: privateToken,
        title: '主节点切换',
        markdown: '## 切换完成\n\n- 数据库-主节点 已切换到 db-2\n- 请检查 `replica_lag`',
      });
      expect(sent.body.code).toBe(200);
      const { context, ui } = await open(PHONE, 'zh-CN');
      try {
        const cards = ui.byTestId('messages-table').getByTestId('list-card');
        await cards.first().waitFor();
        const shared = cards.filter({ hasText: PUBLIC });
        expect(await shared.getByTestId('message-shared').textContent()).toBe(zhCN.messages.shared);
        const unshared = cards.filter({ hasText: PRIVATE });
        expect(await unshared.getByTestId('message-shared').count()).toBe(0);
        expect(await unshared.locator('.preview').textContent()).toBe(PREVIEW);
        const chinese = cards.filter({ hasText: '主节点切换' });
        expect(await chinese.locator('.preview').textContent()).toBe(
          '切换完成 数据库-主节点 已切换到 db-2 请检查 replica_lag',
        );
        // The mark stays inside its card on the narrow screen.
        const mark = await shared.getByTestId('message-shared').boundingBox();
        expect(mark && mark.x + mark.width).toBeLessThanOrEqual(PHONE.width);
        await ui.page.screenshot({ path: join(SHOTS, 'reader-shared-phone-zh-CN.png') });
      } finally {
        await context.close();
      }
      expect(pageErrors).toEqual([]);
    });
  },
);
