import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

import type { Envelope } from './envelope';
import type { ErrorCode } from './errors';
import { createLogger } from './logger';

const log = createLogger('http');

/**
 * What Node's HTTP parser refused, as the envelope's code and message. Node's own answer would
 * be a bare status line with no body; clients of the APIs read `{code, msg, data}` everywhere.
 */
function refusal(code: string | undefined): { status: ErrorCode; msg: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        msg: `the request's headers are too large: ${maxHeaderSize} bytes at most in all`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, msg: "the request body's chunk extensions are too large" };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, msg: 'the request was not received in time' };
    default:
      return { status: 400, msg: 'the request is not valid HTTP/1.1' };
  }
}

/** The whole answer, status line to body; the connection closes after it. */
export function clientErrorResponse(code: string | undefined): string {
  const { status, msg } = refusal(code);
  const body = JSON.stringify({ code: status, msg, data: null } satisfies Envelope<null>);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n' +
    '\r\n' +
    body
  );
}

/** Whether the socket may still carry an answer: open, and no response has begun on it. */
function canAnswer(socket: Duplex): boolean {
  if (!socket.writable) return false;
  // Node's own clientError default checks the in-flight response the same way.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })
    ._httpMessage;
  return !inFlight || inFlight.headersSent !== true;
}

/**
 * The server's `clientError` listener: bytes Node's parser refuses (a bad header, one too
 * large, a broken request line) or a request not received in time get the envelope, logged
 * once. The raw packet is never logged: it may hold a token or a session cookie.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const remote = (socket as Partial<Socket>).remoteAddress ?? 'an unknown address';
  if (err.code === 'ECONNRESET') {
    // The client went away: nothing to answer, nothing anyone need act on.
    log.debug(`connection reset by ${remote}`);
    socket.destroy();
    return;
  }
  const answered = canAnswer(socket);
  log.warn(
    `refused a request from ${remote}: ${err.code ?? 'no code'}` +
      (answered ? ` (answered ${refusal(err.code).status})` : ' (connection closed, no answer)'),
  );
  if (answered) socket.write(clientErrorResponse(err.code));
  // As Node's default does: the bytes after a refused request cannot be trusted to be one.
  socket.destroy();
}

/**
 * The server's `checkExpectation` listener: an `Expect` other than `100-continue`, which Node
 * would answer with a bare 417. Herald expects nothing of the kind, so it says so in the
 * envelope, logged once like the parser's refusals.
 */
export function answerExpectation(req: IncomingMessage, res: ServerResponse): void {
  const body = JSON.stringify({
    code: 417,
    msg: 'Expect: only 100-continue is supported',
    data: null,
  } satisfies Envelope<null>);
  log.warn(`refused a request: EXPECTATION_FAILED from ${req.socket.remoteAddress ?? 'unknown'}`);
  res.writeHead(417, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.end(body);
}
