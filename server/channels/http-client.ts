import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import zlib from 'node:zlib';

import type { z } from 'zod';

import { httpOptionsSchema } from '../../contract/channel-kinds/fields';

import { agentFor } from './http-agents';
import { transportError } from './http-failure';

export { MAX_SOCKETS_PER_ORIGIN } from './http-agents';
export { assertHttpOk, replyOf, retryAfterMs, transportError } from './http-failure';

/** Config fields every HTTP channel accepts (proxy, timeout), declared with the kinds' configs. */
export { httpOptionsSchema };
export type HttpOptions = z.infer<typeof httpOptionsSchema>;

export const DEFAULT_TIMEOUT_MS = 10_000;

/** A platform's reply is read up to this much; the rest is dropped (the status still counts). */
export const MAX_REPLY_BYTES = 1024 * 1024;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

export interface HttpRequest {
  method?: Method | Lowercase<Method>;
  url: string;
  headers?: Record<string, string>;
  /** A string or Buffer (a multipart upload) is sent as is; anything else is sent as JSON. */
  body?: unknown;
  options?: HttpOptions;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** Raw body text (at most MAX_REPLY_BYTES of it). */
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

/** A transport failure before any answer: the socket's own error, or the timeout. */
class TransportFailure extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * What goes on the wire: the body, and the headers it implies unless already set. The body
 * stays a string: node:http writes a string body that fits in one packet together with the
 * headers, where a Buffer goes as a second chunk of a gathered write.
 */
function prepare(req: HttpRequest): {
  headers: Record<string, string>;
  payload?: string | Buffer;
} {
  const headers: Record<string, string> = { ...req.headers };
  // The caller's names in lower case, once: this runs for every attempt.
  const given = new Set<string>();
  for (const name in headers) given.add(name.toLowerCase());
  if (!given.has('accept')) headers.Accept = 'application/json, text/plain, */*';
  if (!given.has('user-agent')) headers['User-Agent'] = 'Herald';
  if (!given.has('accept-encoding')) headers['Accept-Encoding'] = 'gzip, deflate, br';
  if (req.body === undefined || req.body === null) return { headers };
  if (Buffer.isBuffer(req.body)) {
    headers['Content-Length'] = String(req.body.length);
    return { headers, payload: req.body };
  }
  const isText = typeof req.body === 'string';
  const payload = isText ? (req.body as string) : JSON.stringify(req.body);
  if (!isText && !given.has('content-type')) headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(Buffer.byteLength(payload, 'utf8'));
  return { headers, payload };
}

/** The reply's body as a stream of plain bytes, whatever encoding the platform chose. */
function decoded(res: http.IncomingMessage): NodeJS.ReadableStream {
  switch ((res.headers['content-encoding'] ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(zlib.createGunzip());
    case 'deflate':
      return res.pipe(zlib.createInflate());
    case 'br':
      return res.pipe(zlib.createBrotliDecompress());
    default:
      return res;
  }
}

/**
 * Sends one request with keep-alive, a timeout and the channel's proxy (CONNECT tunnelling,
 * so https targets stay end-to-end encrypted), or the environment's proxy when the channel has
 * none. It resolves for every HTTP status; only a transport failure throws, already tagged
 * transient. Plain node:http rather than axios (the design card's choice): measured on
 * 2026-11-26 (README, performance notes), axios cost about 0.1 ms more CPU per delivery and
 * 20-40 % of the deliveries per second; the axios version is commit 835bdd8.
 */
export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  try {
    return await send(req);
  } catch (err) {
    throw transportError(err, req.url);
  }
}

/** Parsed targets by their text, which a channel posts to again and again; bounded. */
const targets = new Map<string, { url: URL; options: http.RequestOptions }>();
const MAX_TARGETS = 1000;

/** The URL and node:http's options for it, parsed once per target rather than per request. */
function target(text: string): { url: URL; options: http.RequestOptions } {
  let t = targets.get(text);
  if (!t) {
    const url = new URL(text);
    if (targets.size >= MAX_TARGETS) targets.clear();
    t = { url, options: urlToHttpOptions(url) };
    targets.set(text, t);
  }
  return t;
}

function send(req: HttpRequest): Promise<HttpResponse> {
  const options = req.options ?? {};
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { url, options: where } = target(req.url);
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') {
    return Promise.reject(new TransportFailure(`unsupported protocol ${url.protocol}`, undefined));
  }
  const { headers, payload } = prepare(req);
  const agent = agentFor(url, options.proxy);
  return new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    // Called from the request's events and the timer only, once both exist.
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      reject(err);
    };
    let outgoing: http.ClientRequest;
    try {
      outgoing = startRequest();
    } catch (err) {
      // node:http refuses some requests at once (a header value with a control character):
      // no timer is running yet, so nothing fires after this answer.
      settled = true;
      reject(err);
      return;
    }
    // The whole exchange, connect to last byte, has to fit in the timeout.
    const timer = setTimeout(
      () => fail(new TransportFailure(`no answer within ${timeoutMs} ms`, 'ETIMEDOUT')),
      timeoutMs,
    );
    outgoing.on('error', fail);
    outgoing.end(payload, 'utf8');

    function startRequest(): http.ClientRequest {
      return (secure ? https : http).request(
        { ...where, method: (req.method ?? 'POST').toUpperCase(), headers, agent },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          let capped = false;
          const body = decoded(res);
          const finish = () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              headers: flatHeaders(res.headers),
              text,
              json: capped ? undefined : parseJson(text),
            });
          };
          body.on('data', (chunk: Buffer) => {
            if (capped) return;
            const room = MAX_REPLY_BYTES - size;
            if (chunk.length >= room) {
              chunks.push(chunk.subarray(0, room));
              size = MAX_REPLY_BYTES;
              capped = true;
              // Enough read to judge the reply: the rest is not worth the bytes.
              finish();
              res.destroy();
              return;
            }
            chunks.push(chunk);
            size += chunk.length;
          });
          body.on('end', finish);
          body.on('error', fail);
          res.on('error', fail);
        },
      );
    }
  });
}

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return headers;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
