import { connect } from 'node:net';

/**
 * A request written byte for byte: fetch() and node:http refuse the inputs a fuzzer wants to
 * send (control characters in headers, unescaped or malformed paths, methods they do not know),
 * so this client writes HTTP/1.1 on a plain socket and reads one answer.
 */
export interface RawRequest {
  method: string;
  /** The request target as sent, e.g. `/api/console/tasks/%zz?x=1`. */
  path: string;
  /** Header lines as sent; Host, Content-Length and Connection are added. */
  headers: Array<[string, string]>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The answer was a Server-Sent Events stream; the client hung up after its headers. */
  stream: boolean;
}

export class RawHttpError extends Error {}

/** Writes strings as latin1 so every code unit below 256 reaches the server as that byte. */
const bytes = (s: string) => Buffer.from(s, 'latin1');

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine, ...lines] = head.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match) throw new RawHttpError(`not an HTTP answer: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(match[1]), headers };
}

function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) throw new RawHttpError('chunked answer ended early');
    const size = parseInt(raw.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size)) throw new RawHttpError('bad chunk size');
    if (size === 0) return Buffer.concat(parts);
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** Sends one request on a new connection and reads the whole answer (Connection: close). */
export function rawRequest(
  baseUrl: string,
  req: RawRequest,
  timeoutMs = 15_000,
): Promise<RawResponse> {
  const { hostname, port, host } = new URL(baseUrl);
  const body = req.body ?? Buffer.alloc(0);
  const head =
    `${req.method} ${req.path} HTTP/1.1\r\n` +
    `Host: ${host}\r\n` +
    req.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('') +
    (body.length > 0 || req.method !== 'GET' ? `Content-Length: ${body.length}\r\n` : '') +
    'Connection: close\r\n\r\n';
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(
      () => finish(() => reject(new RawHttpError(`no complete answer in ${timeoutMs} ms`))),
      timeoutMs,
    );
    socket.on('error', (err) => finish(() => reject(new RawHttpError(err.message))));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return;
      const parsed = parseHead(all.subarray(0, end).toString('latin1'));
      // An event stream never ends by itself: its headers are the answer.
      if (parsed.headers['content-type']?.startsWith('text/event-stream')) {
        finish(() => resolve({ ...parsed, body: '', stream: true }));
      }
    });
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) {
        finish(() => reject(new RawHttpError('connection closed before an answer')));
        return;
      }
      try {
        const parsed = parseHead(all.subarray(0, end).toString('latin1'));
        let rest: Buffer = all.subarray(end + 4);
        if (parsed.headers['transfer-encoding']?.toLowerCase() === 'chunked') rest = dechunk(rest);
        finish(() => resolve({ ...parsed, body: rest.toString('utf8'), stream: false }));
      } catch (err) {
        finish(() => reject(err));
      }
    });
    socket.write(Buffer.concat([bytes(head), body]));
  });
}
