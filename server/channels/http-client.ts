import http from 'node:http';
import https from 'node:https';

import axios, { AxiosError, type AxiosRequestConfig, type Method } from 'axios';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { z } from 'zod';

import { DeliveryError, truncateReply } from './delivery-error';

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

const keepAliveHttp = new http.Agent({ keepAlive: true, maxSockets: 32 });
const keepAliveHttps = new https.Agent({ keepAlive: true, maxSockets: 32 });
const proxyAgents = new Map<string, HttpsProxyAgent<string>>();

function proxyAgent(proxy: string): HttpsProxyAgent<string> {
  let agent = proxyAgents.get(proxy);
  if (!agent) {
    agent = new HttpsProxyAgent(proxy, { keepAlive: true });
    proxyAgents.set(proxy, agent);
  }
  return agent;
}

export interface HttpRequest {
  method?: Method;
  url: string;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else is sent as JSON. */
  body?: unknown;
  options?: HttpOptions;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** Raw body text. */
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

/**
 * Sends one request with keep-alive, a timeout and the channel's proxy (CONNECT tunnelling,
 * so https targets stay end-to-end encrypted). It resolves for every HTTP status; only a
 * transport failure throws, already tagged transient.
 */
export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  const options = req.options ?? {};
  const config: AxiosRequestConfig = {
    method: req.method ?? 'POST',
    url: req.url,
    headers: req.headers,
    data: req.body,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    responseType: 'text',
    transformResponse: (data: unknown) => data,
    validateStatus: () => true,
    maxRedirects: 0,
    proxy: false,
  };
  if (options.proxy) {
    const agent = proxyAgent(options.proxy);
    config.httpAgent = agent;
    config.httpsAgent = agent;
  } else {
    config.httpAgent = keepAliveHttp;
    config.httpsAgent = keepAliveHttps;
  }
  try {
    const res = await axios.request<string>(config);
    const text = typeof res.data === 'string' ? res.data : String(res.data ?? '');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (v !== undefined && v !== null)
        headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    }
    return { status: res.status, headers, text, json: parseJson(text) };
  } catch (err) {
    throw transportError(err, req.url);
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Folds axios and socket errors (with nested causes) into one transient DeliveryError. */
export function transportError(err: unknown, url: string): DeliveryError {
  const host = safeHost(url);
  if (err instanceof AxiosError) {
    const code = err.code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') {
      return DeliveryError.transient(`timed out talking to ${host}`);
    }
    const causeMsg = err.cause instanceof Error ? err.cause.message : '';
    return DeliveryError.transient(
      `network error talking to ${host}: ${code ?? ''} ${err.message}${causeMsg && causeMsg !== err.message ? ` (${causeMsg})` : ''}`
        .replace(/\s+/g, ' ')
        .trim(),
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return DeliveryError.transient(`network error talking to ${host}: ${message}`);
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Parses a Retry-After header (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

/**
 * The common rule for HTTP-status platforms: 2xx succeeds; 429 and 5xx are transient
 * (honouring Retry-After); any other status is permanent. Throws on failure.
 */
export function assertHttpOk(res: HttpResponse, what: string): void {
  if (res.status >= 200 && res.status < 300) return;
  const reply = truncateReply(`HTTP ${res.status} ${res.text}`.trim());
  if (res.status === 429 || res.status >= 500) {
    throw DeliveryError.transient(`${what} answered HTTP ${res.status}`, {
      reply,
      retryAfterMs: retryAfterMs(res.headers['retry-after']),
    });
  }
  throw DeliveryError.permanent(`${what} answered HTTP ${res.status}`, { reply });
}

/** A short reply line for the log. */
export function replyOf(res: HttpResponse): string {
  return truncateReply(`HTTP ${res.status} ${res.text}`.trim());
}
