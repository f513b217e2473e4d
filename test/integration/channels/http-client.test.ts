import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { DeliveryError } from '../../../server/channels/delivery-error';
import { environmentProxy, forgetProxyEnvironment } from '../../../server/channels/http-agents';
import { MAX_REPLY_BYTES, httpRequest } from '../../../server/channels/http-client';
import { startConnectProxy } from '../../fixtures/peers/connect-proxy';

/** A loopback server whose handler each test writes; it records what arrived. */
async function serve(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

describe('httpRequest (node:http on a keep-alive agent)', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('sends an object as JSON and answers with status, lower-case headers, text and json', async () => {
    const seen: Array<{ method?: string; type?: string; length?: string; body: string }> = [];
    const s = await serve(async (req, res) => {
      seen.push({
        method: req.method,
        type: req.headers['content-type'],
        length: req.headers['content-length'],
        body: await readBody(req),
      });
      res.writeHead(201, { 'X-Thing': 'yes', 'Content-Type': 'application/json' });
      res.end('{"ok":true}');
    });
    close = s.close;
    const res = await httpRequest({ url: `${s.url}/x`, body: { a: '你好' } });
    // Content-Length counts bytes: each of the two characters is three in UTF-8.
    expect(seen).toEqual([
      { method: 'POST', type: 'application/json', length: '14', body: '{"a":"你好"}' },
    ]);
    expect(res).toMatchObject({ status: 201, text: '{"ok":true}', json: { ok: true } });
    expect(res.headers['x-thing']).toBe('yes');
  });

  it('sends a string as is and resolves for error statuses, with json undefined for non-JSON', async () => {
    const s = await serve(async (req, res) => {
      const body = await readBody(req);
      res.writeHead(503, { 'Retry-After': '7' });
      res.end(`got ${req.method} ${body}`);
    });
    close = s.close;
    const res = await httpRequest({ method: 'PUT', url: s.url, body: 'plain' });
    expect(res).toMatchObject({ status: 503, text: 'got PUT plain', json: undefined });
    expect(res.headers['retry-after']).toBe('7');
  });

  it('sends each request to its own URL, whatever targets came before (they are parsed once and kept)', async () => {
    const got: string[] = [];
    const a = await serve((req, res) => {
      got.push(`a ${req.url}`);
      res.end();
    });
    const b = await serve((req, res) => {
      got.push(`b ${req.url}`);
      res.end();
    });
    close = async () => {
      await a.close();
      await b.close();
    };
    // More distinct targets than are kept (1,000), so the kept ones are dropped on the way.
    for (let i = 0; i < 1_010; i += 1) {
      const [s, name] = i % 2 === 0 ? [a, 'a'] : [b, 'b'];
      expect((await httpRequest({ url: `${s.url}/p?i=${i}`, body: 'x' })).status).toBe(200);
      expect(got.at(-1)).toBe(`${name} /p?i=${i}`);
    }
    await httpRequest({ url: `${a.url}/p?i=0`, body: 'x' });
    expect(got.at(-1)).toBe('a /p?i=0');
  });

  it('decompresses a gzip reply', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' });
      res.end(zlib.gzipSync('{"errcode":0}'));
    });
    close = s.close;
    expect((await httpRequest({ url: s.url, body: '' })).json).toEqual({ errcode: 0 });
  });

  it('reads a huge reply only up to the cap and keeps its status', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200);
      const chunk = 'x'.repeat(64 * 1024);
      // Twice the cap, so the cap is what stops the read.
      for (let sent = 0; sent < 2 * MAX_REPLY_BYTES; sent += chunk.length) res.write(chunk);
      res.end();
    });
    close = s.close;
    const res = await httpRequest({ method: 'GET', url: s.url });
    expect(res.status).toBe(200);
    expect(res.text.length).toBe(MAX_REPLY_BYTES);
  });

  it('gives up at the timeout with a transient "timed out" error', async () => {
    const s = await serve(() => {
      // Never answers.
    });
    close = s.close;
    const err = await httpRequest({ url: s.url, body: '{}', options: { timeoutMs: 200 } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DeliveryError);
    expect((err as DeliveryError).retryable).toBe(true);
    expect((err as DeliveryError).message).toMatch(/^timed out talking to 127\.0\.0\.1:/);
  });

  it('reports a refused connection as a transient network error naming the host', async () => {
    const s = await serve((_req, res) => res.end());
    const url = s.url;
    await s.close();
    const err = await httpRequest({ url, body: '{}' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeliveryError);
    expect((err as DeliveryError).retryable).toBe(true);
    expect((err as DeliveryError).message).toMatch(
      /network error talking to 127\.0\.0\.1:\d+: .*ECONNREFUSED/,
    );
  });

  it('keeps the connection open between requests to one origin', async () => {
    const ports = new Set<number>();
    const s = await serve((req, res) => {
      ports.add(req.socket.remotePort!);
      res.end('ok');
    });
    close = s.close;
    for (let i = 0; i < 5; i++) {
      await httpRequest({ url: `${s.url}/${i}`, body: String(i) });
      // The connection is handed back once the reply's end has been processed.
      await new Promise((r) => setImmediate(r));
    }
    expect(ports.size).toBe(1);
  });

  it('decompresses deflate and brotli replies', async () => {
    const s = await serve((req, res) => {
      const deflate = req.url === '/deflate';
      res.writeHead(200, { 'Content-Encoding': deflate ? 'deflate' : 'br' });
      res.end(
        deflate ? zlib.deflateSync('{"via":"deflate"}') : zlib.brotliCompressSync('{"via":"br"}'),
      );
    });
    close = s.close;
    expect((await httpRequest({ url: `${s.url}/deflate`, body: '' })).json).toEqual({
      via: 'deflate',
    });
    expect((await httpRequest({ url: `${s.url}/br`, body: '' })).json).toEqual({ via: 'br' });
  });

  it('sends credentials in the URL as Basic auth, as node:http does', async () => {
    const seen: Array<string | undefined> = [];
    const s = await serve((req, res) => {
      seen.push(req.headers.authorization);
      res.end();
    });
    close = s.close;
    const url = s.url.replace('http://', 'http://alice:s%3Acret@');
    expect((await httpRequest({ url, body: '' })).status).toBe(200);
    expect(seen).toEqual([`Basic ${Buffer.from('alice:s:cret').toString('base64')}`]);
  });

  it('passes connection-level headers a channel configured on to the platform', async () => {
    const seen: Array<{ connection?: string; kept?: string }> = [];
    const s = await serve((req, res) => {
      seen.push({ connection: req.headers.connection, kept: req.headers['x-kept'] as string });
      res.end('done');
    });
    close = s.close;
    const res = await httpRequest({
      url: s.url,
      headers: { Connection: 'close', 'X-Kept': 'yes' },
      body: '{}',
    });
    expect(res).toMatchObject({ status: 200, text: 'done' });
    expect(seen).toEqual([{ connection: 'close', kept: 'yes' }]);
  });

  it('reports a header value it cannot send as a transient error, not a crash, then or at its timeout', async () => {
    const s = await serve((_req, res) => res.end());
    close = s.close;
    // node:http refuses such a request at once; its timeout must not fire after the answer.
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => void uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const err = await httpRequest({
        url: s.url,
        headers: { 'X-Bad': 'a\nb' },
        body: '',
        options: { timeoutMs: 100 },
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DeliveryError);
      expect((err as DeliveryError).message).toMatch(
        /^network error talking to 127\.0\.0\.1:\d+: /,
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('counts the reply body in the timeout, not only the wait for headers', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200);
      res.write('{"partial":');
      // The rest never comes.
    });
    close = s.close;
    const started = Date.now();
    const err = await httpRequest({ url: s.url, body: '{}', options: { timeoutMs: 300 } }).catch(
      (e: unknown) => e,
    );
    expect((err as DeliveryError).message).toMatch(/^timed out talking to 127\.0\.0\.1:/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('follows no redirect: the 3xx is the answer', async () => {
    const paths: string[] = [];
    const s = await serve((req, res) => {
      paths.push(req.url ?? '');
      if (req.url === '/moved') res.writeHead(302, { Location: '/elsewhere' }).end();
      else res.end('elsewhere');
    });
    close = s.close;
    const res = await httpRequest({ url: `${s.url}/moved`, body: '{}' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/elsewhere');
    expect(paths).toEqual(['/moved']);
  });

  it('goes through HTTP_PROXY by CONNECT when the channel has no proxy, unless NO_PROXY names the host', async () => {
    const s = await serve((_req, res) => res.end('{"ok":true}'));
    const proxy = await startConnectProxy();
    close = async () => {
      vi.unstubAllEnvs();
      forgetProxyEnvironment();
      await proxy.close();
      await s.close();
    };
    const target = new URL(s.url).host;
    vi.stubEnv('HTTP_PROXY', proxy.url);
    vi.stubEnv('NO_PROXY', '');
    vi.stubEnv('no_proxy', '');
    // Herald reads the variables at most once a second; the test changes them at once.
    forgetProxyEnvironment();
    expect((await httpRequest({ url: s.url, body: '' })).json).toEqual({ ok: true });
    expect(proxy.tunnels).toEqual([target]);

    vi.stubEnv('NO_PROXY', 'example.com, 127.0.0.1');
    forgetProxyEnvironment();
    expect((await httpRequest({ url: s.url, body: '' })).json).toEqual({ ok: true });
    expect(proxy.tunnels).toEqual([target]);
  });
});

describe('environmentProxy (proxy-from-env rules, as axios reads them)', () => {
  afterEach(() => vi.unstubAllEnvs());
  const names = ['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'];
  const clear = () => {
    for (const n of names) {
      vi.stubEnv(n, '');
      vi.stubEnv(n.toUpperCase(), '');
    }
  };

  it("takes the scheme's variable, then ALL_PROXY, and gives a bare host the target's scheme", () => {
    clear();
    expect(environmentProxy(new URL('https://api.example.com/x'))).toBe('');
    vi.stubEnv('HTTPS_PROXY', 'http://proxy:3128');
    vi.stubEnv('ALL_PROXY', 'proxy.all:8080');
    expect(environmentProxy(new URL('https://api.example.com/x'))).toBe('http://proxy:3128');
    expect(environmentProxy(new URL('http://api.example.com/x'))).toBe('http://proxy.all:8080');
  });

  it('skips hosts NO_PROXY names: exact, by suffix, by port, or all with *', () => {
    clear();
    vi.stubEnv('https_proxy', 'http://proxy:3128');
    const via = (u: string) => environmentProxy(new URL(u));
    vi.stubEnv('no_proxy', 'internal.example, .corp.example, *.lan, api.example.com:8443');
    expect(via('https://internal.example/')).toBe('');
    expect(via('https://sub.internal.example/')).toBe('http://proxy:3128');
    expect(via('https://a.corp.example/')).toBe('');
    expect(via('https://printer.lan/')).toBe('');
    expect(via('https://api.example.com:8443/')).toBe('');
    expect(via('https://api.example.com/')).toBe('http://proxy:3128');
    vi.stubEnv('no_proxy', '*');
    expect(via('https://anything.example/')).toBe('');
  });
});
