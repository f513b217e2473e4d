/**
 * `reader`: what a viewer's browser downloads to open the reader (/messages) for the first
 * time, as issue 41 counts it: Debian's Chromium through playwright-core, a fresh profile (empty
 * cache), signed in as a viewer, and every byte that came over the wire (headers and bodies as
 * sent, compressed where they were) from Chromium's own network log, until the page lists its
 * messages and nothing more is asked for a second. The build served is the one `npm start`
 * serves: renderer/dist, rebuilt by bench.ts before the rig starts so that it is the sources'.
 */
import { existsSync } from 'node:fs';

import type { Browser, CDPSession } from 'playwright-core';

import { CHROMIUM, launchChromium } from '../../test/e2e/web/chromium';
import { v2Body } from './herald-process';
import type { Rig } from './rig';
import { median, round1 } from './shared';

/** Issue 41's bar, in kilobytes of 1,000 bytes (the stricter reading of "400 KB"). */
export const READER_BAR_KB = 400;

/** Hosted messages in the reader when it opens: one full page and more, as in daily use. */
const MESSAGES = 30;

const VIEWER = { username: 'bench-viewer', password: 'bench viewer password 1234' };

interface Fetched {
  url: string;
  type: string;
  /** Bytes on the wire: headers and the body as sent. */
  wireBytes: number;
  /** The body after decoding. */
  bodyBytes: number;
  encoding: string | null;
}

/** What one first load fetched, by Chromium's network events (Network.*). */
async function recordNetwork(cdp: CDPSession): Promise<{
  fetched: () => Fetched[];
  quietFor: (ms: number) => Promise<void>;
}> {
  const requests = new Map<string, Fetched & { done: boolean }>();
  let lastActivity = Date.now();
  const touch = () => (lastActivity = Date.now());
  cdp.on('Network.requestWillBeSent', (e) => {
    touch();
    requests.set(e.requestId, {
      url: e.request.url,
      type: e.type ?? 'Other',
      wireBytes: 0,
      bodyBytes: 0,
      encoding: null,
      done: false,
    });
  });
  cdp.on('Network.responseReceived', (e) => {
    touch();
    const r = requests.get(e.requestId);
    if (!r) return;
    r.type = e.type;
    r.wireBytes = e.response.encodedDataLength;
    const headers = Object.fromEntries(
      Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    r.encoding = headers['content-encoding'] ?? null;
  });
  cdp.on('Network.dataReceived', (e) => {
    touch();
    const r = requests.get(e.requestId);
    if (!r) return;
    r.bodyBytes += e.dataLength;
    // A stream that never finishes (the live events) is counted as far as it came.
    if (!r.done) r.wireBytes += e.encodedDataLength;
  });
  cdp.on('Network.loadingFinished', (e) => {
    touch();
    const r = requests.get(e.requestId);
    if (!r) return;
    r.done = true;
    r.wireBytes = e.encodedDataLength;
  });
  await cdp.send('Network.enable');
  return {
    fetched: () => [...requests.values()],
    async quietFor(ms) {
      while (Date.now() - lastActivity < ms) await new Promise((r) => setTimeout(r, 100));
    },
  };
}

/** One first load of /messages in a fresh profile; what it fetched. */
async function firstLoad(browser: Browser, heraldUrl: string): Promise<Fetched[]> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const signIn = await context.request.post(`${heraldUrl}/api/console/login`, {
      data: VIEWER,
    });
    if (!signIn.ok()) throw new Error(`viewer sign-in: HTTP ${signIn.status()}`);
    const page = await context.newPage();
    const network = await recordNetwork(await context.newCDPSession(page));
    await page.goto(`${heraldUrl}/messages`);
    await page.getByTestId('page-messages').waitFor();
    await page.getByTestId('message-row-title').first().waitFor();
    await network.quietFor(1000);
    return network.fetched();
  } finally {
    await context.close();
  }
}

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
      loads.push(await firstLoad(browser, rig.heraldUrl));
  } finally {
    await browser.close();
  }
  const sum = (items: Fetched[], pick: (f: Fetched) => number) =>
    items.reduce((total, f) => total + pick(f), 0);
  const of = (types: string[]) => (items: Fetched[]) =>
    sum(
      items.filter((f) => types.includes(f.type)),
      (f) => f.wireBytes,
    );
  const figure = (measure: (items: Fetched[]) => number) => kb(median(loads.map(measure)));
  const transferredKb = figure((items) => sum(items, (f) => f.wireBytes));
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
      decodedKb: figure((items) => sum(items, (f) => f.bodyBytes)),
    },
    rounds: loads.length,
    bar: `< ${READER_BAR_KB} KB transferred (issue 41): ${transferredKb < READER_BAR_KB ? 'met' : 'NOT met'}`,
  });
}
