import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  firstLoad,
  READER_READY,
  wireBytes,
  type Fetched,
} from '../../../scripts/bench/first-load';
import { READER_BAR_KB } from '../../../scripts/bench/reader-row';
import { startTestHerald, textInstances, type TestHerald } from '../../helpers/herald';
import { chromiumAvailable, ensureConsoleBuilt, launchChromium, RENDERER_DIST } from './chromium';

const haveChromium = chromiumAvailable('first-load e2e');

/**
 * A viewer opens the reader for the first time (issue 41 §16): an empty cache, the console as
 * built for the suite, and the bytes Chromium received, counted as the bench's reader row
 * counts them (scripts/bench/first-load.ts). The budget is the bar, so a page that
 * starts loading a large library at once fails here rather than in a later bench run.
 */
describe.skipIf(!haveChromium)('the reader’s first load in Chromium', { shuffle: false }, () => {
  let herald: TestHerald;
  let browser: Browser;
  let fetched: Fetched[] = [];

  beforeAll(async () => {
    ensureConsoleBuilt();
    herald = await startTestHerald({ rendererDir: RENDERER_DIST });
    const hosted = await herald.createChannel('hosted');
    const { token } = await herald.createTemplate(
      {
        text: 'disk {{pct}}% on {{host}}',
        placeholders: [
          { key: 'host', label: 'Host' },
          { key: 'pct', label: 'Percent' },
        ],
      },
      textInstances([hosted.id]),
    );
    for (let i = 0; i < 25; i++) {
      const sent = await herald.sendV2({
        token,
        title: `Disk almost full ${i}`,
        placeholders: { host: 'db-2', pct: 90 + (i % 10) },
      });
      expect(sent.status).toBe(200);
    }
    const viewer = await herald.signedInAs('viewer');
    browser = await launchChromium();
    fetched = await firstLoad(browser, herald.url, {
      credentials: { username: viewer.user.username, password: viewer.password },
      path: '/messages',
      ready: READER_READY,
    });
  });

  afterAll(async () => {
    await browser?.close();
    await herald?.close(true);
  });

  it('comes in under the 400 KB bar, counting every byte on the wire', () => {
    const transferred = wireBytes(fetched);
    console.log(
      `the reader's first load: ${(transferred / 1000).toFixed(1)} KB on the wire (bar ${READER_BAR_KB} KB), ${fetched.length} requests`,
    );
    expect(transferred).toBeGreaterThan(0);
    expect(transferred).toBeLessThan(READER_BAR_KB * 1000);
  });

  it('every script and style sheet of 1 KiB or more came in brotli', () => {
    const assets = fetched.filter(
      (f) => ['Script', 'Stylesheet'].includes(f.type) && f.bodyBytes >= 1024,
    );
    expect(assets.length).toBeGreaterThan(3);
    const plain = assets.filter((f) => f.encoding !== 'br').map((f) => new URL(f.url).pathname);
    expect(plain, 'rebuild the console (npm run build:renderer) if it predates the copies').toEqual(
      [],
    );
  });

  it('loads neither the chart library nor other pages', () => {
    const names = fetched.map((f) => new URL(f.url).pathname);
    expect(names.some((n) => /MessagesPage-/.test(n))).toBe(true);
    expect(names.filter((n) => /echarts|DashboardPage|SettingsPage|SourcesPage/.test(n))).toEqual(
      [],
    );
  });
});
