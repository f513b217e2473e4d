import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { privateAddressKind } from '../../../../server/lib/private-address';
import {
  fetchRemote,
  RemoteFetchError,
  type RemoteFetchOptions,
} from '../../../../server/lib/remote-fetch';

describe('privateAddressKind()', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.9', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.254', 'shared (CGNAT)'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback (IPv4-mapped)'],
    ['::ffff:7f00:1', 'loopback (IPv4-mapped)'],
    ['::ffff:10.0.0.1', 'private (IPv4-mapped)'],
    ['::ffff:169.254.169.254', 'link-local (IPv4-mapped)'],
    ['64:ff9b::7f00:1', 'loopback (IPv4-mapped)'],
    ['::127.0.0.1', 'loopback (IPv4-mapped)'],
    ['example.com', 'not an IP address'],
  ])('privateAddressKind() refuses %s as %s', (address, kind) => {
    expect(privateAddressKind(address)).toBe(kind);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('privateAddressKind() lets the public address %s through', (address) => {
    expect(privateAddressKind(address)).toBeNull();
  });
});

/**
 * One loopback server plays every remote; the tests treat 127.0.0.1 as public (their own
 * `refuses`) so that the guard's other rules can be seen against a real socket, and 127.0.0.2
 * as the private address a rebinding or a redirect tries to reach.
 */
let server: http.Server;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/file.txt':
        res.setHeader('content-type', 'text/plain');
        res.end('hello');
        return;
      case '/big-declared':
        res.setHeader('content-length', '2000');
        res.end(Buffer.alloc(2000, 1));
        return;
      case '/big-chunked':
        // No Content-Length: the cap has to be enforced while the body streams in.
        res.write(Buffer.alloc(600, 1));
        res.write(Buffer.alloc(600, 1));
        res.end();
        return;
      case '/redirect':
        res.statusCode = 302;
        res.setHeader('location', url.searchParams.get('to') ?? '/file.txt');
        res.end();
        return;
      case '/loop':
        res.statusCode = 301;
        res.setHeader('location', '/loop');
        res.end();
        return;
      case '/missing':
        res.statusCode = 404;
        res.end('no');
        return;
      case '/truncated':
        res.setHeader('content-length', '100');
        res.write('only part');
        res.socket?.destroy();
        return;
      default:
        res.statusCode = 500;
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const onlyLoopbackOnePublic = (address: string): string | null =>
  address === '127.0.0.1' ? null : privateAddressKind(address);

function options(extra: Partial<RemoteFetchOptions> = {}): RemoteFetchOptions {
  return {
    maxBytes: 1000,
    timeoutMs: 5000,
    allowPrivateAddresses: false,
    refuses: onlyLoopbackOnePublic,
    ...extra,
  };
}

async function refusal(promise: Promise<unknown>): Promise<RemoteFetchError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RemoteFetchError);
  return err as RemoteFetchError;
}

describe('fetchRemote()', () => {
  it('fetchRemote() answers the body, its Content-Type and the URL it came from', async () => {
    const file = await fetchRemote(`http://127.0.0.1:${port}/file.txt`, options());
    expect(file.body.toString()).toBe('hello');
    expect(file.contentType).toBe('text/plain');
    expect(file.nameFromUrl).toBe('file.txt');
  });

  it('fetchRemote() refuses a loopback, private or mapped literal before connecting', async () => {
    const before = hits.length;
    for (const host of [
      '127.0.0.2',
      '10.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '169.254.169.254',
    ]) {
      const err = await refusal(fetchRemote(`http://${host}:${port}/file.txt`, options()));
      expect(err.failure).toBe('blocked-address');
      expect(err.status).toBe(400);
      expect(err.message).toContain('allowPrivateAddresses');
    }
    expect(hits.length).toBe(before);
  });

  it('fetchRemote() refuses a name when any of its addresses is private', async () => {
    const before = hits.length;
    const err = await refusal(
      fetchRemote(
        `http://mixed.test:${port}/file.txt`,
        options({
          resolve: async () => [
            { address: '127.0.0.1', family: 4 },
            { address: '192.168.1.1', family: 4 },
          ],
        }),
      ),
    );
    expect(err.failure).toBe('blocked-address');
    expect(err.message).toContain('192.168.1.1');
    expect(hits.length).toBe(before);
  });

  it('fetchRemote() connects to the address it checked, not to what the name resolves to next (DNS rebinding)', async () => {
    let calls = 0;
    // The first answer is the checked one; any later lookup would give a private address
    // (127.0.0.2, where nothing listens on the server's port: a connection there fails).
    const resolve = async (): Promise<{ address: string; family: 4 }[]> => {
      calls += 1;
      return [{ address: calls === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    };
    const file = await fetchRemote(`http://rebind.test:${port}/file.txt`, options({ resolve }));
    expect(file.body.toString()).toBe('hello');
    expect(calls).toBe(1);
  });

  it('fetchRemote() refuses a name that resolves to a private address first', async () => {
    const err = await refusal(
      fetchRemote(
        `http://rebind.test:${port}/file.txt`,
        options({ resolve: async () => [{ address: '127.0.0.2', family: 4 }] }),
      ),
    );
    expect(err.failure).toBe('blocked-address');
  });

  it('fetchRemote() follows a redirect and checks the next hop: a redirect to a private address is refused', async () => {
    const ok = await fetchRemote(`http://127.0.0.1:${port}/redirect?to=/file.txt`, options());
    expect(ok.body.toString()).toBe('hello');
    expect(ok.finalUrl).toBe(`http://127.0.0.1:${port}/file.txt`);

    const before = hits.length;
    for (const to of [
      `http://127.0.0.2:${port}/file.txt`,
      'http://169.254.169.254/latest/meta-data/',
      `http://[::ffff:10.0.0.1]:${port}/`,
    ]) {
      const err = await refusal(
        fetchRemote(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(to)}`, options()),
      );
      expect(err.failure).toBe('blocked-address');
    }
    // Only the redirecting hops reached a server.
    expect(hits.slice(before).every((h) => h.startsWith('/redirect'))).toBe(true);
  });

  it('fetchRemote() refuses a redirect to a name that resolves privately', async () => {
    const resolve = async (host: string): Promise<{ address: string; family: 4 }[]> => [
      { address: host === 'inside.test' ? '10.0.0.5' : '127.0.0.1', family: 4 },
    ];
    const err = await refusal(
      fetchRemote(
        `http://127.0.0.1:${port}/redirect?to=${encodeURIComponent('http://inside.test/x')}`,
        options({ resolve }),
      ),
    );
    expect(err.failure).toBe('blocked-address');
    expect(err.message).toContain('10.0.0.5');
  });

  it('fetchRemote() stops after five redirects', async () => {
    const err = await refusal(fetchRemote(`http://127.0.0.1:${port}/loop`, options()));
    expect(err.failure).toBe('too-many-redirects');
    expect(err.message).toContain('5 redirects');
  });

  it('fetchRemote() refuses a body over the cap, declared or streamed', async () => {
    for (const path of ['/big-declared', '/big-chunked']) {
      const err = await refusal(fetchRemote(`http://127.0.0.1:${port}${path}`, options()));
      expect(err.failure).toBe('too-large');
      expect(err.status).toBe(413);
      expect(err.message).toContain('1000 bytes');
    }
    const fits = await fetchRemote(
      `http://127.0.0.1:${port}/big-chunked`,
      options({ maxBytes: 1200 }),
    );
    expect(fits.body.length).toBe(1200);
  });

  it('fetchRemote() refuses other schemes, credentials in the URL, a non-2xx answer and a cut body', async () => {
    expect((await refusal(fetchRemote('file:///etc/passwd', options()))).failure).toBe('bad-url');
    expect((await refusal(fetchRemote('not a url', options()))).failure).toBe('bad-url');
    expect(
      (await refusal(fetchRemote(`http://u:p@127.0.0.1:${port}/file.txt`, options()))).failure,
    ).toBe('bad-url');
    const missing = await refusal(fetchRemote(`http://127.0.0.1:${port}/missing`, options()));
    expect(missing.failure).toBe('http-status');
    expect(missing.message).toContain('404');
    const cut = await refusal(fetchRemote(`http://127.0.0.1:${port}/truncated`, options()));
    expect(cut.failure).toBe('network');
  });

  it('fetchRemote() reaches private addresses when the settings allow them', async () => {
    const file = await fetchRemote(
      `http://localhost:${port}/file.txt`,
      options({
        allowPrivateAddresses: true,
        refuses: undefined,
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      }),
    );
    expect(file.body.toString()).toBe('hello');
  });
});
