import { readdirSync, readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildConsoleInto } from '../../helpers/console-build';
import { startTestHerald, type TestHerald } from '../../helpers/herald';

/**
 * The built console as Herald serves it: a real build (the command `npm run build:renderer`
 * runs, into a folder of this file's own) behind a real Herald, read over loopback with
 * node:http, which hands back the bytes as sent (fetch would decode them).
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

let herald: TestHerald;
let dist: string;
let port: number;

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The file names under dist/assets that the build wrote. */
function assets(): string[] {
  return readdirSync(join(dist, 'assets'));
}

/** The main script index.html loads: the console's largest first-load file. */
function mainScript(): string {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const src = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  if (!src) throw new Error(`no module script in index.html:\n${html}`);
  return src;
}

const varyNames = (a: Answer) =>
  String(a.headers.vary ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase());

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'herald-console-build-'));
  await buildConsoleInto(dist);
  herald = await startTestHerald({ rendererDir: dist, setup: false });
  port = herald.server.port;
}, 180_000);

afterAll(async () => {
  await herald?.close(true);
  if (dist) rmSync(dist, { recursive: true, force: true });
});

describe('the console files: compression', () => {
  it('the build wrote a brotli and a gzip copy of every script and style sheet of 1 KiB or more', () => {
    const names = new Set(assets());
    const big = [...names].filter(
      (n) => /\.(js|css)$/.test(n) && readFileSync(join(dist, 'assets', n)).length >= 1024,
    );
    expect(big.length).toBeGreaterThan(5);
    for (const name of big) {
      expect(names.has(`${name}.br`), `${name}.br`).toBe(true);
      expect(names.has(`${name}.gz`), `${name}.gz`).toBe(true);
    }
  });

  it('br and gzip answers decode to the very bytes of the plain one, each saying Vary: Accept-Encoding', async () => {
    const path = mainScript();
    const onDisk = readFileSync(join(dist, path));
    const plain = await get(path, { 'Accept-Encoding': 'identity' });
    const br = await get(path, { 'Accept-Encoding': 'br' });
    const gzip = await get(path, { 'Accept-Encoding': 'gzip' });

    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(onDisk)).toBe(true);

    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(onDisk)).toBe(true);
    expect(Number(br.headers['content-length'])).toBe(br.body.length);

    expect(gzip.status).toBe(200);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(onDisk)).toBe(true);

    for (const answer of [plain, br, gzip]) {
      expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(varyNames(answer)).toContain('accept-encoding');
    }
    // What compression is for: the main script in brotli is well under a third of its size.
    expect(br.body.length).toBeLessThan(onDisk.length / 3);
    expect(br.body.length).toBeLessThan(gzip.body.length);
  });

  it('a browser’s Accept-Encoding gets br; weights and refusals are honoured; no header gets the plain file', async () => {
    const path = mainScript();
    const coding = async (accept?: string) =>
      (await get(path, accept === undefined ? {} : { 'Accept-Encoding': accept })).headers[
        'content-encoding'
      ];
    expect(await coding('gzip, deflate, br, zstd')).toBe('br'); // Chromium's
    expect(await coding('br;q=0, gzip')).toBe('gzip');
    expect(await coding('gzip;q=0.5, br;q=0.4')).toBe('gzip');
    expect(await coding('*')).toBe('br');
    expect(await coding('deflate')).toBeUndefined();
    expect(await coding('gzip;q=0.5, identity')).toBeUndefined();
    expect(await coding()).toBeUndefined();
  });

  it('a style sheet comes compressed with its own type', async () => {
    const css = assets().find((n) => /^index-.+\.css$/.test(n));
    expect(css).toBeDefined();
    const answer = await get(`/assets/${css}`, { 'Accept-Encoding': 'br' });
    expect(answer.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(answer.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(answer.body).equals(readFileSync(join(dist, 'assets', css!)))).toBe(
      true,
    );
  });
});

describe('the console files: caching', () => {
  it('a hashed asset may be kept a year without asking again', async () => {
    const answer = await get(mainScript(), { 'Accept-Encoding': 'br' });
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('index.html, at every console route and under its own name, is revalidated on each use', async () => {
    for (const path of ['/', '/messages', '/messages/12', '/index.html']) {
      const answer = await get(path, { 'Accept-Encoding': 'gzip, deflate, br' });
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-type'], path).toBe('text/html; charset=utf-8');
      expect(answer.headers['cache-control'], path).toBe('no-cache');
      const html =
        answer.headers['content-encoding'] === 'br'
          ? brotliDecompressSync(answer.body)
          : answer.body;
      expect(html.toString(), path).toContain(mainScript());
    }
  });

  it('a file whose name carries no hash is not immutable', async () => {
    const answer = await get('/favicon.svg');
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-cache');
  });

  it('an unchanged file answers 304 to its ETag, per representation', async () => {
    const path = mainScript();
    const br = await get(path, { 'Accept-Encoding': 'br' });
    const plain = await get(path, { 'Accept-Encoding': 'identity' });
    expect(br.headers.etag).toBeDefined();
    expect(br.headers.etag).not.toBe(plain.headers.etag);
    const again = await get(path, {
      'Accept-Encoding': 'br',
      'If-None-Match': String(br.headers.etag),
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });
});

describe('the console files: what is not there, HEAD and ranges', () => {
  it('a missing asset is a 404, never index.html in its place', async () => {
    const missing = await get('/assets/index-AAAAAAAA.js', { 'Accept-Encoding': 'br' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(missing.headers['cache-control']).toBe('no-cache');
    expect(JSON.parse(missing.body.toString())).toEqual({
      code: 404,
      msg: 'no such file: /assets/index-AAAAAAAA.js',
      data: null,
    });
  });

  it('no path leaves the build folder, nor reaches a dot-file', async () => {
    for (const path of ['/assets/%2e%2e/%2e%2e/package.json', '/assets/..%2f..%2fpackage.json']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.toString(), path).not.toContain('"devDependencies"');
    }
  });

  it('HEAD gives GET’s headers without the body', async () => {
    const path = mainScript();
    const head = await get(path, { 'Accept-Encoding': 'br' }, 'HEAD');
    const full = await get(path, { 'Accept-Encoding': 'br' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of [
      'content-type',
      'content-encoding',
      'content-length',
      'cache-control',
      'etag',
      'vary',
    ]) {
      expect(head.headers[name], name).toEqual(full.headers[name]);
    }
  });

  it('a Range is served from the representation chosen', async () => {
    const path = mainScript();
    const onDisk = readFileSync(join(dist, path));
    const plain = await get(path, { 'Accept-Encoding': 'identity', Range: 'bytes=0-99' });
    expect(plain.status).toBe(206);
    expect(plain.headers['content-range']).toBe(`bytes 0-99/${onDisk.length}`);
    expect(plain.body.equals(onDisk.subarray(0, 100))).toBe(true);

    const brCopy = readFileSync(join(dist, `${path}.br`));
    const br = await get(path, { 'Accept-Encoding': 'br', Range: 'bytes=10-19' });
    expect(br.status).toBe(206);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-range']).toBe(`bytes 10-19/${brCopy.length}`);
    expect(br.body.equals(brCopy.subarray(10, 20))).toBe(true);
  });

  it('the console’s pages carry the same security headers as the API', async () => {
    const answer = await get(mainScript(), { 'Accept-Encoding': 'br' });
    expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('the console files: the installable reader', () => {
  it('the service worker and the manifest come with their types and are revalidated on each use', async () => {
    const worker = await get('/sw.js', { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    expect(worker.status).toBe(200);
    expect(worker.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(worker.headers['cache-control']).toBe('no-cache');
    // A worker at the root controls the whole console without Service-Worker-Allowed.
    expect(worker.headers['service-worker-allowed']).toBeUndefined();

    const manifest = await get('/manifest.webmanifest');
    expect(manifest.status).toBe(200);
    expect(manifest.headers['content-type']).toBe('application/manifest+json; charset=utf-8');
    expect(manifest.headers['cache-control']).toBe('no-cache');
    const app = JSON.parse(manifest.body.toString('utf8')) as {
      start_url: string;
      display: string;
      icons: { src: string; sizes: string; purpose?: string }[];
    };
    expect(app.start_url).toBe('/messages');
    expect(app.display).toBe('standalone');
    expect(app.icons.map((i) => `${i.sizes} ${i.purpose ?? 'any'}`)).toEqual([
      '192x192 any',
      '512x512 any',
      '512x512 maskable',
    ]);
    for (const icon of app.icons) {
      const png = await get(icon.src);
      expect(png.status, icon.src).toBe(200);
      expect(png.headers['content-type'], icon.src).toBe('image/png');
      // The PNG's own width and height, big-endian at bytes 16 and 20 of its IHDR.
      const size = `${png.body.readUInt32BE(16)}x${png.body.readUInt32BE(20)}`;
      expect(size, icon.src).toBe(icon.sizes);
    }
    expect(readFileSync(join(dist, 'index.html'), 'utf8')).toContain(
      '<link rel="manifest" href="/manifest.webmanifest">',
    );
  });

  it('a build without them answers 404 for the worker and the manifest, not index.html', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'herald-console-bare-'));
    writeFileSync(join(bare, 'index.html'), '<!doctype html><title>old</title>');
    const other = await startTestHerald({ rendererDir: bare, setup: false });
    try {
      const saved = port;
      port = other.server.port;
      try {
        for (const path of ['/sw.js', '/manifest.webmanifest']) {
          const answer = await get(path);
          expect(answer.status, path).toBe(404);
          expect(answer.headers['content-type'], path).toMatch(/^application\/json/);
        }
        expect((await get('/messages')).status).toBe(200);
      } finally {
        port = saved;
      }
    } finally {
      await other.close(true);
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
