import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HostedMessage } from '../../../server/db/models';
import { IMAGE_CACHE_FOLDER } from '../../../server/features/image-proxy/image-cache';
import { MAX_IMAGE_BYTES } from '../../../server/features/image-proxy/image-proxy-service';
import { ConsoleClient, startTestHerald, type TestHerald } from '../../helpers/herald';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read loosely typed JSON answers */

/**
 * The image proxy (issue 43 §3) over real HTTP: a hosted message's remote images reach the
 * reader only as signed proxy addresses; the proxy refuses what Herald did not sign, private
 * addresses unless the settings allow them, non-images and oversized bodies (none of them
 * cached), and serves an image once from the remote and then from its cache. Each person's
 * remote-image choices are their own. Runs on PostgreSQL too (HERALD_TEST_DATABASE=postgres).
 */

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
}

/** The "sender's" image server on loopback, recording every request it gets. */
async function imageServer(): Promise<{ server: Server; base: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    hits.push({ path: req.url ?? '', headers: req.headers });
    const path = (req.url ?? '').split('?')[0];
    if (path.startsWith('/pic')) {
      // The server's own type is ignored: the bytes say PNG.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(PNG);
    } else if (path === '/page.html') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end('<html><script>alert(1)</script></html>');
    } else if (path === '/vector.svg') {
      res.writeHead(200, { 'content-type': 'image/svg+xml' });
      res.end('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    } else if (path === '/huge.png') {
      // Streamed without a length, so the cap is met while reading, not from the header.
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(PNG.subarray(0, 16));
      res.end(Buffer.alloc(MAX_IMAGE_BYTES));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}`, hits };
}

describe('the image proxy', () => {
  let herald: TestHerald;
  let remote: Awaited<ReturnType<typeof imageServer>>;
  const hitsOf = (path: string) => remote.hits.filter((h) => h.path === path).length;

  beforeAll(async () => {
    remote = await imageServer();
    herald = await startTestHerald({ startDispatcher: false });
  });
  afterAll(async () => {
    await herald?.close(true);
    await new Promise((resolve) => remote?.server.close(resolve));
  });

  async function message(content: string, format: 'html' | 'markdown' = 'html') {
    return herald.server.ctx.writeLock.run(() =>
      HostedMessage.create({
        channelId: null,
        deliveryId: null,
        title: 'with pictures',
        content,
        format,
        url: null,
      }),
    );
  }

  /** The src of every img in the reader's HTML. */
  const srcs = (html: string) => [...html.matchAll(/<img[^>]*\ssrc="([^"]*)"/g)].map((m) => m[1]);
  const unescape = (s: string) => s.replace(/&amp;/g, '&');

  /** The proxy address Herald puts into a message for `url`. */
  async function proxiedAddress(url: string): Promise<string> {
    const m = await message(`<p><img src="${url}" alt="x"></p>`);
    const detail = await herald.console.ok('GET', `/messages/${m.id}`);
    const [src] = srcs(detail.safeHtml);
    return unescape(src);
  }

  const fetchAs = (client: ConsoleClient, address: string) =>
    fetch(`${herald.url}${address}`, { headers: client.cookie ? { Cookie: client.cookie } : {} });

  const allowPrivate = (on: boolean) =>
    herald.console.ok('PUT', '/settings', { allowPrivateAddresses: on });

  it('serves the reader signed proxy addresses, never the original', async () => {
    const url = `${remote.base}/pic-original.png`;
    const m = await message(
      `<p><img src="${url}" alt="chart"><img src="data:image/png;base64,${PNG.toString('base64')}"></p>` +
        `<img src="javascript:alert(1)">`,
    );

    const detail = await herald.console.ok('GET', `/messages/${m.id}`);

    const [proxied, inline, ...rest] = srcs(detail.safeHtml);
    expect(unescape(proxied)).toMatch(
      /^\/api\/console\/image-proxy\?url=[^&]+&exp=\d+&sig=[\w-]{43}$/,
    );
    expect(new URL(unescape(proxied), herald.url).searchParams.get('url')).toBe(url);
    expect(inline).toMatch(/^data:image\/png;base64,/);
    expect(rest).toEqual([]);
    expect(detail.safeHtml).not.toContain(`src="${remote.base}`);
    // Markdown images are rewritten the same way.
    const md = await message(`![chart](${remote.base}/pic-md.png)`, 'markdown');
    const mdDetail = await herald.console.ok('GET', `/messages/${md.id}`);
    expect(srcs(mdDetail.safeHtml).map(unescape)).toEqual([
      expect.stringMatching(/^\/api\/console\/image-proxy\?url=/),
    ]);
    // This test's images only: the file's other tests fetch theirs, in any order.
    expect(hitsOf('/pic-original.png') + hitsOf('/pic-md.png')).toBe(0);
  });

  it('refuses an address Herald did not sign, one signed for another, and an expired one', async () => {
    const address = await proxiedAddress(`${remote.base}/pic-signed.png`);
    const query = new URL(address, herald.url).searchParams;
    const other = `${remote.base}/pic-other.png`;
    const cases: Array<[string, RegExp]> = [
      [`/api/console/image-proxy?url=${encodeURIComponent(other)}`, /exp: is required/],
      [
        `/api/console/image-proxy?url=${encodeURIComponent(other)}&exp=${query.get('exp')}`,
        /sig: is required/,
      ],
      [
        `/api/console/image-proxy?url=${encodeURIComponent(other)}&exp=${query.get('exp')}&sig=${query.get('sig')}`,
        /sig: does not match/,
      ],
      [`${address.replace(/sig=[\w-]+/, 'sig=not-a-signature')}`, /sig: is not a signature/],
      [herald.server.ctx.imageProxy.signer.proxied(other, 1)!, /exp: .*has expired/],
    ];

    for (const [path, msg] of cases) {
      const res = await fetchAs(herald.console, path);
      const body: any = await res.json();
      expect({ path, status: res.status, code: body.code }).toEqual({
        path,
        status: 400,
        code: 400,
      });
      expect(body.msg).toMatch(msg);
    }
    expect(hitsOf('/pic-signed.png') + hitsOf('/pic-other.png')).toBe(0);
  });

  it('answers 401 without a session', async () => {
    const address = await proxiedAddress(`${remote.base}/pic-session.png`);

    const res = await fetchAs(new ConsoleClient(herald.url), address);

    expect(res.status).toBe(401);
    expect(hitsOf('/pic-session.png')).toBe(0);
  });

  it('refuses a loopback address unless the settings allow private addresses', async () => {
    const address = await proxiedAddress(`${remote.base}/pic-private.png`);
    await allowPrivate(false);

    const res = await fetchAs(herald.console, address);

    const body: any = await res.json();
    expect(res.status).toBe(403);
    expect(body.msg).toMatch(/loopback address.*allowPrivateAddresses/);
    expect(hitsOf('/pic-private.png')).toBe(0);
  });

  it('passes an image on once allowed, without cookie, Referer or client address, then from its cache', async () => {
    const address = await proxiedAddress(`${remote.base}/pic-cached.png?v=1`);
    await allowPrivate(true);

    const first = await fetchAs(herald.console, address);
    const firstBody = Buffer.from(await first.arrayBuffer());
    const second = await fetchAs(herald.console, address);
    const secondBody = Buffer.from(await second.arrayBuffer());

    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(first.headers.get('cache-control')).toMatch(/private/);
    expect(firstBody.equals(PNG)).toBe(true);
    expect(second.status).toBe(200);
    expect(secondBody.equals(PNG)).toBe(true);
    const hits = remote.hits.filter((h) => h.path === '/pic-cached.png?v=1');
    expect(hits).toHaveLength(1);
    const sent = Object.keys(hits[0].headers);
    for (const header of ['cookie', 'referer', 'x-forwarded-for', 'forwarded', 'x-real-ip']) {
      expect(sent).not.toContain(header);
    }
    expect(readdirSync(join(herald.dataDir, IMAGE_CACHE_FOLDER))).toHaveLength(1);
  });

  it('refuses HTML and SVG whatever their Content-Type says, and does not cache them', async () => {
    await allowPrivate(true);
    for (const path of ['/page.html', '/vector.svg']) {
      const address = await proxiedAddress(`${remote.base}${path}`);
      for (const attempt of [1, 2]) {
        const res = await fetchAs(herald.console, address);
        const body: any = await res.json();
        expect({ path, attempt, status: res.status }).toEqual({ path, attempt, status: 415 });
        expect(body.msg).toMatch(/not an image Herald passes on.*never SVG or HTML/);
      }
      // Not cached: the second request reached the remote again.
      expect(hitsOf(path)).toBe(2);
    }
  });

  it('refuses a body over the cap and does not cache it', async () => {
    await allowPrivate(true);
    const address = await proxiedAddress(`${remote.base}/huge.png`);

    for (const attempt of [1, 2]) {
      const res = await fetchAs(herald.console, address);
      const body: any = await res.json();
      expect({ attempt, status: res.status }).toEqual({ attempt, status: 413 });
      expect(body.msg).toMatch(/larger than 5242880 bytes/);
    }
    expect(hitsOf('/huge.png')).toBe(2);
  });
});

describe('remote-image choices, per person', () => {
  let herald: TestHerald;

  beforeAll(async () => {
    herald = await startTestHerald({ startDispatcher: false });
  });
  afterAll(() => herald?.close(true));

  it('shows images by the install default until a person chooses for themselves', async () => {
    const viewer = (await herald.signedInAs('viewer')).client;
    const m = await herald.server.ctx.writeLock.run(() =>
      HostedMessage.create({
        channelId: null,
        deliveryId: null,
        title: 'pictures',
        content: '<img src="https://images.example/a.png">',
        format: 'html',
        url: null,
      }),
    );
    const shown = async (client: ConsoleClient) =>
      (await client.ok('GET', `/messages/${m.id}`)).showRemoteImages;

    expect(await viewer.ok('GET', '/remote-images')).toEqual({
      always: null,
      installDefault: false,
      sources: [],
    });
    expect(await shown(viewer)).toBe(false);

    await herald.console.ok('PUT', '/settings', { showRemoteImages: true });
    expect(await shown(viewer)).toBe(true);

    // Never, for this viewer alone.
    const never = await viewer.ok('PUT', '/remote-images', { always: false });
    expect(never).toMatchObject({ always: false, installDefault: true });
    expect(await shown(viewer)).toBe(false);
    expect(await shown(herald.console)).toBe(true);

    // Back to the install's default.
    await viewer.ok('PUT', '/remote-images', { always: null });
    expect(await shown(viewer)).toBe(true);
    await herald.console.ok('PUT', '/settings', { showRemoteImages: false });
  });

  it('shows one message’s images for the person who chose it, on any device', async () => {
    const { client: viewer, user, password } = await herald.signedInAs('viewer');
    const m = await herald.server.ctx.writeLock.run(() =>
      HostedMessage.create({
        channelId: null,
        deliveryId: null,
        title: 'one message',
        content: '<img src="https://images.example/b.png">',
        format: 'html',
        url: null,
      }),
    );

    expect(await viewer.ok('PUT', `/remote-images/messages/${m.id}`, { show: true })).toEqual({
      show: true,
    });

    // Another browser of the same person sees the choice.
    const otherDevice = new ConsoleClient(herald.url);
    await otherDevice.ok('POST', '/login', { username: user.username, password });
    const detail = await otherDevice.ok('GET', `/messages/${m.id}`);
    expect(detail.showRemoteImages).toBe(true);
    expect(detail.remoteImages).toEqual({ message: true, source: null, always: null });
    // Not someone else's choice.
    expect((await herald.console.ok('GET', `/messages/${m.id}`)).showRemoteImages).toBe(false);

    await viewer.ok('PUT', `/remote-images/messages/${m.id}`, { show: false });
    expect((await otherDevice.ok('GET', `/messages/${m.id}`)).showRemoteImages).toBe(false);
  });

  it('shows every message of a source the person chose', async () => {
    const viewer = (await herald.signedInAs('viewer')).client;
    const inbox = await herald.createChannel('hosted', {}, 'image inbox');
    const { template, token } = await herald.createTemplate(
      { name: 'reports with charts', html: '<img src="https://charts.example/{{n}}.png">' },
      [{ channelId: inbox.id, contentType: 'html' }],
    );
    const sendOne = async (n: number) => {
      const sent = await herald.sendV2({ token, title: `report ${n}`, placeholders: { n } });
      expect(sent.body.code).toBe(200);
      return herald.waitFor(async () => {
        const page = await viewer.ok('GET', `/messages?q=${encodeURIComponent(`report ${n}`)}`);
        return page.items[0];
      });
    };
    const first = await sendOne(1);
    const before = await viewer.ok('GET', `/messages/${first.id}`);
    expect(before.showRemoteImages).toBe(false);
    expect(before.remoteImages.source).toEqual({
      kind: 'template',
      id: template.id,
      chosen: false,
    });

    const choices = await viewer.ok('PUT', `/remote-images/sources/template/${template.id}`, {
      show: true,
    });

    expect(choices.sources).toEqual([{ kind: 'template', id: template.id }]);
    expect((await viewer.ok('GET', `/messages/${first.id}`)).showRemoteImages).toBe(true);
    const second = await sendOne(2);
    const after = await viewer.ok('GET', `/messages/${second.id}`);
    expect(after.showRemoteImages).toBe(true);
    expect(after.remoteImages.source.chosen).toBe(true);
    expect((await herald.console.ok('GET', `/messages/${second.id}`)).showRemoteImages).toBe(false);
  });

  it('refuses bad choices with a 4xx naming what is wrong', async () => {
    const viewer = (await herald.signedInAs('viewer')).client;
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['PUT', '/remote-images', { always: 'yes' }, 400, /always/],
      ['PUT', '/remote-images', {}, 400, /always/],
      ['PUT', '/remote-images/messages/999999', { show: true }, 404, /message 999999/],
      ['PUT', '/remote-images/messages/abc', { show: true }, 400, /id/],
      ['PUT', '/remote-images/sources/channel/1', { show: true }, 400, /kind/],
      ['PUT', '/remote-images/sources/task/999999', { show: true }, 404, /task 999999/],
      ['PUT', '/remote-images/sources/template/1', { show: 1 }, 400, /show/],
    ];
    for (const [method, path, body, status, msg] of cases) {
      const res = await viewer.request(method, path, body);
      expect({ path, status: res.status }).toEqual({ path, status });
      expect(res.body.msg).toMatch(msg);
    }
  });
});
