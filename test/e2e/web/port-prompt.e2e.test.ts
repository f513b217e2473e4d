import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { portPromptUrl } from '../../../main/port-prompt';
import { chromiumAvailable, launchChromium } from './chromium';

const haveChromium = chromiumAvailable('port prompt e2e');

/**
 * The desktop app's "Type a port…" page (main/port-prompt.ts) in Chromium, loaded from the same
 * data: URL the prompt window loads: its script runs under its own CSP, checks the field and
 * answers through document.title, which Electron reports to main as `page-title-updated`.
 */
describe.skipIf(!haveChromium)('the port prompt page in Chromium', () => {
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (message) => {
      // A CSP that blocked the script would say so here.
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(portPromptUrl({ port: 8765 }));
    return page;
  }

  it('answers a valid port through the title, with the field focused from the start', async () => {
    const page = await open();
    expect(await page.title()).toBe('Herald: choose a port');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('port');

    await page.keyboard.type('9123');
    await page.keyboard.press('Enter');

    await expect.poll(() => page.title()).toBe('herald-port:9123');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('refuses a port outside 1024–65535 and says which', async () => {
    const page = await open();
    for (const value of ['80', '70000', '12.5']) {
      await page.fill('#port', value);
      await page.click('#use');
      expect(await page.isVisible('#error')).toBe(true);
      expect(await page.title()).toBe('Herald: choose a port');
    }
    expect(await page.textContent('#error')).toContain('from 1024 to 65535');
    await page.close();
  });

  it('answers cancel from the button and from Escape', async () => {
    const button = await open();
    await button.click('#cancel');
    await expect.poll(() => button.title()).toBe('herald-cancel');
    await button.close();

    const escape = await open();
    await escape.keyboard.press('Escape');
    await expect.poll(() => escape.title()).toBe('herald-cancel');
    await escape.close();
    expect(errors).toEqual([]);
  });
});
