/**
 * One first load of a console page as a browser makes it, measured from Chromium's own network
 * log: a fresh profile (empty cache), signed in as the given person, and every byte that came
 * over the wire (headers and bodies as sent, compressed where they were) until the page shows
 * what `ready` waits for and nothing more is asked for a second. The bench's reader row and the
 * browser test of the reader's budget (test/e2e/web/first-load.e2e.test.ts) both count with it.
 */
import type { Browser, CDPSession } from 'playwright-core';

export interface Fetched {
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

/** Who signs in, the page opened, and the test id whose first element means it has loaded. */
export interface FirstLoadSpec {
  credentials: { username: string; password: string };
  path: string;
  ready: string[];
}

/** One first load of `spec.path` in a fresh profile; what it fetched. */
export async function firstLoad(
  browser: Browser,
  heraldUrl: string,
  spec: FirstLoadSpec,
): Promise<Fetched[]> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const signIn = await context.request.post(`${heraldUrl}/api/console/login`, {
      data: spec.credentials,
    });
    if (!signIn.ok()) throw new Error(`sign-in: HTTP ${signIn.status()}`);
    const page = await context.newPage();
    const network = await recordNetwork(await context.newCDPSession(page));
    await page.goto(`${heraldUrl}${spec.path}`);
    for (const id of spec.ready) await page.getByTestId(id).first().waitFor();
    await network.quietFor(1000);
    return network.fetched();
  } finally {
    await context.close();
  }
}

/** The bytes on the wire of what was fetched, of the given resource types only if given. */
export function wireBytes(fetched: Fetched[], types?: string[]): number {
  return fetched
    .filter((f) => types === undefined || types.includes(f.type))
    .reduce((total, f) => total + f.wireBytes, 0);
}

/** What a viewer opening the reader waits for: its list with a message in it. */
export const READER_READY = ['page-messages', 'message-row-title'];
