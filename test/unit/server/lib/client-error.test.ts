import { PassThrough } from 'node:stream';

import { describe, expect, it, vi } from 'vitest';

import { answerClientError, clientErrorResponse } from '../../../../server/lib/client-error';

/** A socket stand-in: records what is written and whether it was destroyed. */
function fakeSocket(opts: { writable?: boolean; inFlight?: { headersSent: boolean } } = {}) {
  const socket = new PassThrough() as PassThrough & { _httpMessage?: unknown };
  const written: string[] = [];
  Object.defineProperty(socket, 'writable', { value: opts.writable ?? true });
  socket.write = ((chunk: string) => {
    written.push(chunk);
    return true;
  }) as typeof socket.write;
  const destroy = vi.spyOn(socket, 'destroy');
  socket._httpMessage = opts.inFlight ?? null;
  return { socket, written, destroy };
}

const parseError = (code: string) => Object.assign(new Error('Parse Error'), { code });

describe('clientErrorResponse', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'Request Header Fields Too Large'],
    ['HPE_INVALID_HEADER_TOKEN', 400, 'Bad Request'],
    ['HPE_INVALID_METHOD', 400, 'Bad Request'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'Request Timeout'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'Payload Too Large'],
  ])('%s: %i, the status line equal to the body code', (code, status, reason) => {
    const text = clientErrorResponse(code);
    const [head, body] = text.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${reason}`);
    expect(head).toContain('\r\nContent-Type: application/json; charset=utf-8');
    expect(head).toContain('\r\nConnection: close');
    expect(head).toContain(`\r\nContent-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toEqual({ code: status, msg: expect.any(String), data: null });
  });
});

describe('answerClientError', () => {
  it('answers a writable socket with no response begun, then closes it', () => {
    const { socket, written, destroy } = fakeSocket();
    answerClientError(parseError('HPE_INVALID_HEADER_TOKEN'), socket);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^HTTP\/1\.1 400 /);
    expect(destroy).toHaveBeenCalled();
  });

  it('answers when a response exists but has not sent its headers (a body still arriving)', () => {
    const { socket, written } = fakeSocket({ inFlight: { headersSent: false } });
    answerClientError(parseError('ERR_HTTP_REQUEST_TIMEOUT'), socket);
    expect(written[0]).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('writes nothing once a response has begun: it would corrupt the answer', () => {
    const { socket, written, destroy } = fakeSocket({ inFlight: { headersSent: true } });
    answerClientError(parseError('HPE_INVALID_HEADER_TOKEN'), socket);
    expect(written).toEqual([]);
    expect(destroy).toHaveBeenCalled();
  });

  it('writes nothing to a socket that is no longer writable', () => {
    const { socket, written, destroy } = fakeSocket({ writable: false });
    answerClientError(parseError('HPE_INVALID_METHOD'), socket);
    expect(written).toEqual([]);
    expect(destroy).toHaveBeenCalled();
  });

  it('a reset connection is only destroyed', () => {
    const { socket, written, destroy } = fakeSocket();
    answerClientError(parseError('ECONNRESET'), socket);
    expect(written).toEqual([]);
    expect(destroy).toHaveBeenCalled();
  });
});
