import { once } from 'node:events';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { rawRequest } from '../../helpers/exact-request';

/** Opens a socket, writes `bytes`, and records what the server answers until it closes it. */
function openSocket(port: number, bytes: string) {
  const socket: Socket = connect(port, '127.0.0.1', () => socket.write(bytes));
  let received = '';
  socket.on('data', (c) => (received += c.toString('utf8')));
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  return { socket, closed };
}

describe('server timeouts and the connection cap', () => {
  describe('timeouts (shortened so the test sees them act)', () => {
    let herald: TestHerald;
    beforeAll(async () => {
      herald = await startTestHerald({
        httpTimeouts: { headersMs: 300, requestMs: 600, checkEveryMs: 50 },
      });
    });
    afterAll(() => herald.close(true));

    it('a client that trickles its headers (slowloris) is answered 408 and cut', async () => {
      const { closed } = openSocket(
        herald.server.port,
        `GET /api/console/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n`,
      );
      const answer = await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      // In the envelope like every other answer (lib/client-error.ts).
      expect(JSON.parse(answer.split('\r\n\r\n')[1])).toEqual({
        code: 408,
        msg: 'the request was not received in time',
        data: null,
      });
    });

    it('an event stream outlives requestTimeout: only receiving the request is timed', async () => {
      const hosted = await herald.createChannel('hosted');
      const { token } = await herald.createTemplate({ text: 'late event' }, [
        { channelId: hosted.id, contentType: 'text' },
      ]);
      let stream = '';
      const req = request({
        host: '127.0.0.1',
        port: herald.server.port,
        path: '/api/console/events',
        headers: { Accept: 'text/event-stream', Cookie: herald.console.cookie },
      });
      const opened = new Promise<void>((resolve, reject) => {
        req.on('response', (res) => {
          res.on('data', (c: Buffer) => (stream += c.toString('utf8')));
          resolve();
        });
        req.on('error', reject);
      });
      req.end();
      await opened;

      // A request whose body never completes is cut by requestTimeout: once it is, the stream
      // opened before it has lived longer than requestTimeout.
      const { closed } = openSocket(
        herald.server.port,
        'POST /api/v2/message/send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tok',
      );
      expect(await closed).toMatch(/^HTTP\/1\.1 408/);

      const sent = await herald.sendV2({ token, title: 'after the timeout' });
      expect(sent.status).toBe(200);
      await herald.waitFor(() => stream.includes('after the timeout'));
      expect(stream).toMatch(/event: message/);
      req.destroy();
    });
  });

  describe('maxConnections', () => {
    let herald: TestHerald;
    beforeAll(async () => {
      herald = await startTestHerald({ setup: false, maxConnections: 3 });
    });
    afterAll(() => herald.close(true));

    it('idle connections beyond the cap are dropped at once; a slot frees when one closes', async () => {
      const port = herald.server.port;
      const held = [1, 2, 3].map(() =>
        openSocket(port, 'GET /api/console/status HTTP/1.1\r\nHost: 127.0.0.1\r\n'),
      );
      await Promise.all(held.map((h) => once(h.socket, 'connect')));
      // The server counts a socket once it accepts it: retry until the fourth is dropped.
      await herald.waitFor(async () => {
        try {
          await rawRequest(port, { path: '/api/console/status' });
          return false;
        } catch (err) {
          return /ECONNRESET|socket hang up/.test(String(err));
        }
      });
      held[0].socket.destroy();
      const answered = await herald.waitFor(async () => {
        try {
          return await rawRequest(port, { path: '/api/console/status' });
        } catch {
          return null;
        }
      });
      expect(answered.status).toBe(200);
      for (const h of held) h.socket.destroy();
    });
  });
});
