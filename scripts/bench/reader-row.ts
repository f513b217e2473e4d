/**
 * `reader`: what a viewer's browser downloads to open the reader (/messages) for the first
 * time, as issue 41 counts it: Debian's Chromium through playwright-core, a fresh profile, and
 * every byte on the wire until the list shows (first-load.ts). The build served is the one
 * `npm start` serves: renderer/dist, rebuilt by bench.ts before the rig starts so that it is the
 * sources'.
 */
import { existsSync } from 'node:fs';

import { CHROMIUM, launchChromium } from '../../test/e2e/web/chromium';
import { firstLoad, READER_READY, wireBytes, type Fetched } from './first-load';
import { v2Body } from './herald-process';
import type { Rig } from './rig';
import { median, round1 } from './shared';

/** Issue 41's bar, in kilobytes of 1,000 bytes (the stricter reading of "400 KB"). */
export const READER_BAR_KB = 400;

/** Hosted messages in the reader when it opens: one full page and more, as in daily use. */
const MESSAGES = 30;

const VIEWER = { username: 'bench-viewer', password: 'bench viewer password 1234' };

const kb = (bytes: number) => round1(bytes / 1000);

/** The reader's first load, `rounds` times, each in a fresh profile; the medians. */
export async function readerRow(rig: Rig): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    console.log(`reader: skipped, ${CHROMIUM} is missing (apt-get install -y chromium)`);
    return;
  }
  await rig.api.call('POST', '/users', { ...VIEWER, role: 'viewer' });
  const body = v2Body(rig.tokens.v2One);
  for (let i = 0; i < MESSAGES; i++) {
    const res = await fetch(`${rig.heraldUrl}/api/v2/message/send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    if (!res.ok) throw new Error(`reader: a hosted send failed: HTTP ${res.status}`);
  }

  const browser = await launchChromium();
  const loads: Fetched[][] = [];
  try {
    for (let i = 0; i < rig.options.rounds; i++)
      loads.push(
        await firstLoad(browser, rig.heraldUrl, {
          credentials: VIEWER,
          path: '/messages',
          ready: READER_READY,
        }),
      );
  } finally {
    await browser.close();
  }
  const figure = (measure: (items: Fetched[]) => number) => kb(median(loads.map(measure)));
  const of = (types: string[]) => (items: Fetched[]) => wireBytes(items, types);
  const transferredKb = figure((items) => wireBytes(items));
  const last = loads.at(-1) ?? [];
  // Files under 1 KiB go plain by design (scripts/precompress-assets.ts MIN_BYTES).
  const uncompressed = last.filter(
    (f) => f.encoding === null && f.bodyBytes >= 1024 && ['Script', 'Stylesheet'].includes(f.type),
  );
  if (uncompressed.length > 0) {
    console.log(
      `reader: sent without compression: ${uncompressed.map((f) => new URL(f.url).pathname).join(', ')}`,
    );
  }
  rig.record({
    what: `the reader's first load (/messages as a viewer, empty cache, Chromium, ${MESSAGES} hosted messages): bytes on the wire, KB of 1,000 bytes`,
    herald: {
      transferredKb,
      scriptsKb: figure(of(['Script'])),
      stylesKb: figure(of(['Stylesheet'])),
      documentKb: figure(of(['Document'])),
      apiKb: figure(of(['XHR', 'Fetch', 'EventSource'])),
      requests: median(loads.map((items) => items.length)),
      decodedKb: figure((items) => items.reduce((total, f) => total + f.bodyBytes, 0)),
    },
    rounds: loads.length,
    bar: `< ${READER_BAR_KB} KB transferred (issue 41): ${transferredKb < READER_BAR_KB ? 'met' : 'NOT met'}`,
  });
}
