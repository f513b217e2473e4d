import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { HostedMessage, Send, User } from '../../../server/db/models';
import { startServer } from '../../../server/index';
import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { rawRequest } from '../../helpers/exact-request';

/** Sends raw bytes and resolves with everything the server answers before closing. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (c) => (text += c.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('Host allow-list (DNS rebinding)', () => {
  describe('on a fresh install', () => {
    let herald: TestHerald;
    beforeAll(async () => {
      herald = await startTestHerald({ setup: false });
    });
    afterAll(() => herald.close(true));

    it('a rebound page cannot create the first administrator: 421, and no admin exists', async () => {
      for (const host of ['attacker.example', `attacker.example:${herald.server.port}`]) {
        const res = await rawRequest(herald.server.port, {
          method: 'POST',
          path: '/api/console/setup',
          headers: { Host: host, 'Content-Type': 'application/json' },
          body: JSON.stringify({ username: 'evil', password: 'evil-password-1' }),
        });
        expect(res.status).toBe(421);
        expect(res.body.code).toBe(421);
        expect(res.body.data).toBeNull();
        expect(res.body.msg).toMatch(/HERALD_ALLOWED_HOSTS/);
        expect(res.headers['set-cookie']).toBeUndefined();
      }
      expect(await User.count()).toBe(0);
      const status = await herald.console.get('/status');
      expect(status.body.data.setupRequired).toBe(true);
    });

    it('every route is refused for a foreign Host, the console pages and public routes included', async () => {
      for (const path of [
        '/',
        '/messages',
        '/api/console/status',
        '/api/openapi.json',
        '/nope',
        '/healthz',
        '/readyz',
        '/metrics',
      ]) {
        const res = await rawRequest(herald.server.port, {
          path,
          headers: { Host: 'attacker.example' },
        });
        expect(res.status, path).toBe(421);
      }
    });

    it('names that only look like loopback are refused', async () => {
      for (const host of [
        'localhost.attacker.example',
        '127.0.0.1.nip.io',
        'evil@127.0.0.1',
        '127.0.0.1/x',
        'attacker.example, 127.0.0.1',
      ]) {
        const res = await rawRequest(herald.server.port, {
          path: '/api/console/status',
          headers: { Host: host },
        });
        expect(res.status, host).toBe(421);
      }
    });

    it('loopback names are answered on any port, however they are spelled', async () => {
      const port = herald.server.port;
      for (const host of [
        `127.0.0.1:${port}`,
        '127.0.0.1',
        `localhost:${port}`,
        'LOCALHOST',
        'localhost.',
        `[::1]:${port}`,
        'localhost:1',
      ]) {
        const res = await rawRequest(port, {
          path: '/api/console/status',
          headers: { Host: host },
        });
        expect(res.status, host).toBe(200);
      }
    });

    it('answers stay the same once many Host spellings were seen (the guard remembers allowed ones)', async () => {
      const port = herald.server.port;
      const status = async (host: string) =>
        (await rawRequest(port, { path: '/api/console/status', headers: { Host: host } })).status;
      // More allowed spellings than the guard keeps, in between refused look-alikes.
      for (let p = 1; p <= 100; p++) {
        expect(await status(`localhost:${p}`)).toBe(200);
        if (p % 10 === 0) {
          expect(await status(`localhost.attacker.example:${p}`)).toBe(421);
          expect(await status(`evil@localhost:${p}`)).toBe(421);
        }
      }
      expect(await status(`127.0.0.1:${port}`)).toBe(200);
      expect(await status(`127.0.0.1:${port}`)).toBe(200);
      expect(await status('attacker.example')).toBe(421);
      expect(await status('attacker.example')).toBe(421);
      expect(await status(' ')).toBe(400);
    });
    it('an HTTP/1.0 request without Host gets a 400 that says why', async () => {
      const answer = await rawExchange(
        herald.server.port,
        'GET /api/console/status HTTP/1.0\r\nConnection: close\r\n\r\n',
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      expect(body.code).toBe(400);
      expect(body.msg).toMatch(/no Host header/);
    });
  });

  describe('on an install with an administrator and a template', () => {
    let herald: TestHerald;
    let token: string;
    beforeAll(async () => {
      herald = await startTestHerald({ allowedHosts: ['herald.lan', 'Proxy.Example.COM'] });
      const hosted = await herald.createChannel('hosted');
      ({ token } = await herald.createTemplate({ text: 'hello' }, [
        { channelId: hosted.id, contentType: 'text' },
      ]));
    });
    afterAll(() => herald.close(true));

    it('a rebound page cannot send: 421, and nothing is stored or delivered', async () => {
      const sendsBefore = await Send.count();
      for (const path of ['/api/v2/message/send', '/api/v1/message/send']) {
        const res = await rawRequest(herald.server.port, {
          method: 'POST',
          path,
          headers: { Host: 'attacker.example', 'Content-Type': 'text/plain' },
          body: JSON.stringify({ token, title: 'rebound send' }),
        });
        expect(res.status, path).toBe(421);
      }
      expect(await Send.count()).toBe(sendsBefore);
      expect(await HostedMessage.count({ where: { title: 'rebound send' } })).toBe(0);
    });

    it('names in allowedHosts (HERALD_ALLOWED_HOSTS) are answered, in any case and on any port', async () => {
      for (const host of ['herald.lan', 'HERALD.LAN:8765', 'proxy.example.com']) {
        const res = await rawRequest(herald.server.port, {
          method: 'POST',
          path: '/api/v2/message/send',
          headers: { Host: host, 'Content-Type': 'application/json' },
          body: JSON.stringify({ token, title: `allowed ${host}` }),
        });
        expect(res.status, host).toBe(200);
      }
      const denied = await rawRequest(herald.server.port, {
        path: '/api/console/status',
        headers: { Host: 'other.lan' },
      });
      expect(denied.status).toBe(421);
    });
  });

  it('the specific address Herald listens on is one of its names', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-test-'));
    // 127.0.0.2 stands in for a LAN address: any 127/8 address is local on Linux.
    const server = await startServer({ host: '127.0.0.2', port: 0, dataDir, rendererDir: dataDir });
    try {
      const ok = await rawRequest(server.port, {
        connectTo: '127.0.0.2',
        path: '/api/console/status',
      });
      expect(ok.status).toBe(200);
      const refused = await rawRequest(server.port, {
        connectTo: '127.0.0.2',
        path: '/api/console/status',
        headers: { Host: 'attacker.example' },
      });
      expect(refused.status).toBe(421);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('listening on every interface, each interface address is answered, other addresses are not', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-test-'));
    const server = await startServer({ host: '0.0.0.0', port: 0, dataDir, rendererDir: dataDir });
    try {
      const addresses = Object.values(networkInterfaces())
        .flatMap((entries) => entries ?? [])
        .filter((e) => !e.address.includes('%'))
        .map((e) => (e.family === 'IPv6' ? `[${e.address}]` : e.address));
      expect(addresses.length).toBeGreaterThan(0);
      for (const address of addresses) {
        const res = await rawRequest(server.port, {
          path: '/api/console/status',
          headers: { Host: `${address}:${server.port}` },
        });
        expect(res.status, address).toBe(200);
      }
      // TEST-NET-3: an address literal that is not this machine's.
      const foreign = await rawRequest(server.port, {
        path: '/api/console/status',
        headers: { Host: `203.0.113.7:${server.port}` },
      });
      expect(foreign.status).toBe(421);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('startServer() refuses a malformed allowed host at start, naming the setting', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-test-'));
    try {
      await expect(
        startServer({ port: 0, dataDir, allowedHosts: ['http://herald.lan/'] }),
      ).rejects.toThrow(/--allowed-hosts: "http:\/\/herald.lan\/" is not a host name/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
