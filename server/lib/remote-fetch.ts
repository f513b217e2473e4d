import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

import { privateAddressKind } from './private-address';

/**
 * Fetching a URL a caller gave Herald (an attachment by URL, an image to proxy) without letting
 * the caller use Herald to reach what only Herald can reach. Every hop's host is resolved,
 * every address it resolves to is checked, and the connection goes to the checked address (the
 * socket's lookup is pinned to it), so a name that answers differently the second time (DNS
 * rebinding) cannot slip a private address in between the check and the connect. Redirects are
 * followed by hand, each hop checked the same way. No proxy from the environment is used: a
 * proxy would resolve the name itself, out of reach of the check.
 */

/** Why a fetch was refused; each maps to the envelope status a caller answers with. */
export type RemoteFetchFailure =
  | 'bad-url'
  | 'blocked-address'
  | 'too-large'
  | 'timeout'
  | 'too-many-redirects'
  | 'http-status'
  | 'network';

/**
 * A refused or failed fetch. `status` is the 4xx a caller answers its own client with: 413 when
 * the file is over the cap, 400 for everything else (the URL, its address or the remote server
 * is the problem, not Herald).
 */
export class RemoteFetchError extends Error {
  readonly failure: RemoteFetchFailure;
  readonly status: 400 | 413;
  constructor(failure: RemoteFetchFailure, message: string) {
    super(message);
    this.name = 'RemoteFetchError';
    this.failure = failure;
    this.status = failure === 'too-large' ? 413 : 400;
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface RemoteFetchOptions {
  /** The most bytes the body may have; past it the transfer is aborted. */
  maxBytes: number;
  /** For the whole fetch, every hop and the body included. */
  timeoutMs: number;
  /** settings.allowPrivateAddresses: private, loopback and the like are reachable. */
  allowPrivateAddresses: boolean;
  /** 5 unless given. */
  maxRedirects?: number;
  headers?: Record<string, string>;
  /** Name resolution; the system resolver unless given (tests give their own). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Why an address is refused, or null; privateAddressKind unless given (tests give their own). */
  refuses?: (address: string) => string | null;
}

export interface RemoteFile {
  body: Buffer;
  /** The server's Content-Type, as sent (never trusted for the type: sniff the bytes). */
  contentType: string | null;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
  /** The last path segment of finalUrl, decoded, or null. */
  nameFromUrl: string | null;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RemoteFetchError('bad-url', `not a valid URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RemoteFetchError(
      'bad-url',
      `only http and https URLs can be fetched, not ${url.protocol}`,
    );
  }
  if (url.username || url.password) {
    throw new RemoteFetchError('bad-url', 'a URL with a user name or password cannot be fetched');
  }
  return url;
}

/** Resolves the URL's host and checks every address; the first one is the one to connect to. */
async function checkedAddress(url: URL, options: RemoteFetchOptions): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'an error';
      throw new RemoteFetchError('network', `the host ${host} could not be resolved (${code})`);
    }
    if (addresses.length === 0) {
      throw new RemoteFetchError('network', `the host ${host} has no address`);
    }
  }
  if (!options.allowPrivateAddresses) {
    const refuses = options.refuses ?? privateAddressKind;
    for (const { address } of addresses) {
      const kind = refuses(address);
      if (kind !== null) {
        throw new RemoteFetchError(
          'blocked-address',
          `${host} resolves to ${address}, a ${kind} address: Herald does not fetch from private addresses unless the settings allow it (allowPrivateAddresses)`,
        );
      }
    }
  }
  return addresses[0];
}

/** A lookup that answers only the checked address, whatever the name resolves to now. */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, opts, callback) => {
    if ((opts as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [pinned]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
}

interface Hop {
  status: number;
  location: string | null;
  contentType: string | null;
  body: Buffer | null;
}

function requestOnce(
  url: URL,
  pinned: ResolvedAddress,
  options: RemoteFetchOptions,
  signal: AbortSignal,
): Promise<Hop> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: RemoteFetchError): void => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(err);
    };
    const succeed = (hop: Hop): void => {
      if (settled) return;
      settled = true;
      resolve(hop);
    };
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: 'GET',
      // No agent: a pooled socket was connected for an earlier check and must not be reused.
      agent: false,
      lookup: pinnedLookup(pinned),
      signal,
      headers: {
        'user-agent': 'Herald',
        accept: '*/*',
        'accept-encoding': 'identity',
        ...options.headers,
      },
    });
    const failure = (err: Error): RemoteFetchError => {
      if (signal.aborted) {
        return new RemoteFetchError(
          'timeout',
          `${url.host} did not answer within ${options.timeoutMs} ms`,
        );
      }
      const code = (err as { code?: string }).code;
      return new RemoteFetchError('network', `${url.host}: ${code ?? err.message}`);
    };
    req.on('error', (err) => fail(failure(err)));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const contentType = res.headers['content-type'] ?? null;
      if (REDIRECTS.has(status) || status < 200 || status >= 300) {
        const location = REDIRECTS.has(status) ? (res.headers.location ?? null) : null;
        res.resume();
        succeed({ status, location, contentType, body: null });
        req.destroy();
        return;
      }
      const tooLarge = (): RemoteFetchError =>
        new RemoteFetchError(
          'too-large',
          `the file at ${url.host} is larger than ${options.maxBytes} bytes`,
        );
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        fail(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) {
          fail(tooLarge());
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (err) => fail(failure(err)));
      res.on('close', () => {
        if (!res.complete) {
          fail(
            signal.aborted
              ? failure(new Error('aborted'))
              : new RemoteFetchError(
                  'network',
                  `${url.host} closed the connection before the end of the file`,
                ),
          );
        }
      });
      res.on('end', () =>
        succeed({ status, location: null, contentType, body: Buffer.concat(chunks, size) }),
      );
    });
    req.end();
  });
}

/** Races a step that does not take a signal (name resolution) against the fetch's timeout. */
function beforeTimeout<T>(
  step: Promise<T>,
  signal: AbortSignal,
  what: () => RemoteFetchError,
): Promise<T> {
  if (signal.aborted) return Promise.reject(what());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(what());
    signal.addEventListener('abort', onAbort, { once: true });
    step.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function nameOf(url: URL): string | null {
  const last = url.pathname.split('/').pop() ?? '';
  if (last === '') return null;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * fetchRemote() fetches an http(s) URL under the guard: at most `maxBytes`, within
 * `timeoutMs`, following at most 5 redirects (each hop checked), refusing private addresses
 * unless allowed. Throws a RemoteFetchError saying why it did not get a 2xx body.
 */
export async function fetchRemote(raw: string, options: RemoteFetchOptions): Promise<RemoteFile> {
  const maxRedirects = options.maxRedirects ?? 5;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let url = parseUrl(raw);
  try {
    for (let hop = 0; ; hop += 1) {
      const host = url.host;
      const pinned = await beforeTimeout(
        checkedAddress(url, options),
        controller.signal,
        () =>
          new RemoteFetchError(
            'timeout',
            `${host} was not resolved within ${options.timeoutMs} ms`,
          ),
      );
      const answer = await requestOnce(url, pinned, options, controller.signal);
      if (answer.body !== null) {
        return {
          body: answer.body,
          contentType: answer.contentType,
          finalUrl: url.href,
          nameFromUrl: nameOf(url),
        };
      }
      if (answer.location === null) {
        const why = REDIRECTS.has(answer.status) ? ' (a redirect without a Location)' : '';
        throw new RemoteFetchError(
          'http-status',
          `${url.host} answered HTTP ${answer.status}${why}`,
        );
      }
      if (hop >= maxRedirects) {
        throw new RemoteFetchError(
          'too-many-redirects',
          `more than ${maxRedirects} redirects, starting at ${parseUrl(raw).host}`,
        );
      }
      let next: string;
      try {
        next = new URL(answer.location, url).href;
      } catch {
        throw new RemoteFetchError('bad-url', `${url.host} redirected to an invalid URL`);
      }
      url = parseUrl(next);
    }
  } finally {
    clearTimeout(timer);
  }
}
