import { connect } from 'node:net';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { startTestHerald, type TestHerald } from '../../helpers/herald';
import { rawRequest } from '../../helpers/exact-request';
import { keepLogLines } from '../../helpers/log-lines';

/** Writes `bytes` on a fresh socket and returns all the server sends until it closes it. */
function sendRaw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

/** Splits a raw HTTP/1.1 answer into its status, lower-cased headers and body. */
function parseAnswer(raw: string) {
  const [head, body] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => {
      const colon = l.indexOf(':');
      return [l.slice(0, colon).toLowerCase(), l.slice(colon + 1).trim()];
    }),
  );
  return { statusLine, status: Number(statusLine.split(' ')[1]), headers, body };
}

const TOKEN = 'tok_never-in-the-log-5f1c2a';

describe('requests Node’s HTTP parser refuses', () => {
  let herald: TestHerald;
  const lines: string[] = [];
  let log: ReturnType<typeof keepLogLines>;

  beforeAll(async () => {
    herald = await startTestHerald({ setup: false });
    log = keepLogLines('warn', lines);
  });
  afterAll(async () => {
    log.restore();
    await herald.close(true);
  });
  afterEach(async () => {
    // Whatever it was sent, the server goes on answering.
    const status = await rawRequest(herald.server.port, { path: '/api/console/status' });
    expect(status.status).toBe(200);
    expect(status.body.code).toBe(200);
  });

  const cases = [
    {
      name: 'a header name with a space in it',
      bytes: `GET /api/v2/message/send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nBad Header: 1\r\n\r\n`,
      status: 400,
      code: 'HPE_INVALID_HEADER_TOKEN',
    },
    {
      name: 'headers over Node’s 16 KiB limit',
      bytes: `GET /api/console/status HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: herald_session=${TOKEN}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      status: 431,
      code: 'HPE_HEADER_OVERFLOW',
    },
    {
      name: 'a request line that is not HTTP',
      bytes: `HELLO ${TOKEN} WORLD\r\n\r\n`,
      status: 400,
      code: 'HPE_INVALID_METHOD',
    },
  ];

  for (const c of cases) {
    it(`${c.name}: answered ${c.status} in the envelope, logged once without the bytes`, async () => {
      lines.length = 0;
      const answer = parseAnswer(await sendRaw(herald.server.port, c.bytes));

      expect(answer.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${c.status} `));
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers.connection).toBe('close');
      expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
      const body = JSON.parse(answer.body) as { code: number; msg: string; data: unknown };
      expect(body).toEqual({ code: c.status, msg: expect.any(String), data: null });
      expect(body.msg.length).toBeGreaterThan(0);

      const refused = lines.filter((l) => l.includes('refused a request'));
      expect(refused).toHaveLength(1);
      expect(refused[0]).toContain(c.code);
      expect(refused[0]).toContain('127.0.0.1');
      expect(lines.join('\n')).not.toContain(TOKEN);
    });
  }

  it('a request without Host, and one with an Expect Herald does not know, get the envelope too', async () => {
    const noHost = parseAnswer(
      await sendRaw(
        herald.server.port,
        'GET /api/console/status HTTP/1.1\r\nConnection: close\r\n\r\n',
      ),
    );
    expect(noHost.status).toBe(400);
    expect(JSON.parse(noHost.body)).toEqual({
      code: 400,
      msg: expect.stringMatching(/^the request has no Host header/),
      data: null,
    });

    lines.length = 0;
    const expectation = parseAnswer(
      await sendRaw(
        herald.server.port,
        'POST /api/v2/message/send HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n',
      ),
    );
    expect(expectation.statusLine).toMatch(/^HTTP\/1\.1 417 /);
    expect(expectation.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(expectation.body)).toEqual({
      code: 417,
      msg: 'Expect: only 100-continue is supported',
      data: null,
    });
    expect(lines.filter((l) => l.includes('refused a request'))).toHaveLength(1);
  });
});
