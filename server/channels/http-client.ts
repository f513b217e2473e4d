import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { Readable } from 'node:stream';

import axios, { type AxiosResponse } from 'axios';
import { z } from 'zod';

import { agentFor } from './http-agents';
import { transportError } from './http-failure';

export { MAX_SOCKETS_PER_ORIGIN } from './http-agents';
export { assertHttpOk, replyOf, retryAfterMs, transportError } from './http-failure';

/** Config fields every HTTP channel accepts: an optional proxy and a timeout. */
export const httpOptionsSchema = z.object({
  proxy: z
    .string()
    .trim()
    .regex(/^https?:\/\/\S+$/, 'proxy must be an http:// or https:// URL')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  timeoutMs: z.number().int().min(100).max(120_000).optional(),
});
export type HttpOptions = z.infer<typeof httpOptionsSchema>;

export const DEFAULT_TIMEOUT_MS = 10_000;

/** A platform's reply is read up to this much; the rest is dropped (the status still counts). */
export const MAX_REPLY_BYTES = 1024 * 1024;

/** No channel builds a request this large; one that did is refused before it is sent. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

export interface HttpRequest {
  method?: Method | Lowercase<Method>;
  url: string;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else is sent as JSON. */
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

/**
 * What every channel request shares. Herald judges each status itself (validateStatus), follows
 * no redirect (a platform that moves its API should be reconfigured, not chased with the
 * message), serialises bodies itself and reads the decompressed reply as a stream: axios's
 * maxContentLength would reject an oversized reply and its status with it, where Herald reads
 * up to MAX_REPLY_BYTES and still classifies the status. The agent carries keep-alive and any
 * proxy, so axios's own proxy handling is off.
 */
const client = axios.create({
  responseType: 'stream',
  decompress: true,
  validateStatus: () => true,
  maxRedirects: 0,
  maxBodyLength: MAX_REQUEST_BYTES,
  maxContentLength: -1,
  proxy: false,
  transformRequest: [],
  transformResponse: [],
});

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

/** What goes on the wire: the body as bytes, and the headers it implies unless already set. */
function prepare(req: HttpRequest): { headers: Record<string, string>; payload?: Buffer } {
  const headers: Record<string, string> = { ...req.headers };
  // axios would quietly strip a line break from a value; node:http refuses the request, and
  // so does Herald, since the platform would not get the header the channel configured.
  for (const [name, value] of Object.entries(headers)) {
    validateHeaderName(name);
    validateHeaderValue(name, value);
  }
  if (!hasHeader(headers, 'user-agent')) headers['User-Agent'] = 'Herald';
  if (req.body === undefined || req.body === null) return { headers };
  const isText = typeof req.body === 'string';
  const payload = Buffer.from(isText ? (req.body as string) : JSON.stringify(req.body), 'utf8');
  if (!isText && !hasHeader(headers, 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  return { headers, payload };
}

/** The transport failure the whole-exchange timeout stands for. */
class TimedOut extends Error {
  readonly code = 'ETIMEDOUT';
}

/**
 * Sends one request with axios on a keep-alive agent, with a timeout and the channel's (or the
 * environment's) proxy. It resolves for every HTTP status; only a transport failure throws,
 * already tagged transient.
 */
export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  const timeoutMs = req.options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // The whole exchange, connect to last byte, has to fit in the timeout; axios's own timeout
  // stops counting once the headers are in.
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new TimedOut(`no answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  try {
    const url = new URL(req.url);
    const agent = agentFor(url, req.options?.proxy);
    const { headers, payload } = prepare(req);
    const res: AxiosResponse<Readable> = await client.request({
      url: req.url,
      method: req.method ?? 'POST',
      headers,
      data: payload,
      httpAgent: agent,
      httpsAgent: agent,
      signal: controller.signal,
    });
    const { text, capped } = await readCapped(res.data, controller.signal);
    return {
      status: res.status,
      headers: flatHeaders(res.headers),
      text,
      json: capped ? undefined : parseJson(text),
    };
  } catch (err) {
    throw transportError(controller.signal.aborted ? controller.signal.reason : err, req.url);
  } finally {
    clearTimeout(timer);
  }
}

/** The reply's text, up to MAX_REPLY_BYTES; past that the connection is dropped. */
function readCapped(
  body: Readable,
  signal: AbortSignal,
): Promise<{ text: string; capped: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (capped: boolean) => {
      signal.removeEventListener('abort', onAbort);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), capped });
    };
    const onAbort = () => {
      body.destroy();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    body.on('data', (chunk: Buffer) => {
      const room = MAX_REPLY_BYTES - size;
      if (chunk.length < room) {
        chunks.push(chunk);
        size += chunk.length;
        return;
      }
      chunks.push(chunk.subarray(0, room));
      // Enough read to judge the reply: the rest is not worth the bytes.
      body.removeAllListeners('data');
      done(true);
      body.destroy();
    });
    body.on('end', () => done(false));
    body.on('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
  });
}

function flatHeaders(raw: AxiosResponse['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v !== undefined && v !== null) {
      headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    }
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
