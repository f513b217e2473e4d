import type { Request, RequestHandler, Response } from 'express';

import { HOOKS_BASE } from '../../../contract';
import { createEventLogger, logEnabled } from '../../lib/logger';

/**
 * One `info` line per HTTP request, written when its answer is done or its connection closes:
 * method, path, status, duration, response bytes, remote address. Never a body, a header or
 * a query string: a send's `token` rides in the query, and some paths are credentials
 * themselves (a hook's token, a share link's key), so those segments are written as `…`.
 * HERALD_ACCESS_LOG=0 turns it off. A probe that succeeds (`/healthz`, `/readyz`, `/metrics`
 * answered below 400) is a `debug` line: a container's HEALTHCHECK or a scraper asks every few
 * seconds, and at `info` its lines would bury the requests people read the log for.
 */

const logEvent = createEventLogger('access');

/** Paths whose last segment is a credential: a hook URL's token, a share link's key. */
// Slashes may be doubled: such a path is not routed, but its secret is still somebody's.
const SECRET_TAIL = [
  new RegExp(`^(${HOOKS_BASE.replace(/\//g, '/+')}/+[^/]+/+)[^/]+`, 'i'),
  /^(\/+api\/+public\/+preview\/+)[^/]+/i,
  /^(\/+preview\/+)[^/]+/i,
];

/** The paths load balancers, orchestrators and Prometheus poll (api/ops-router.ts). */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The level of a request's line (`path` without its query): `debug` for a probe that succeeded,
 * `info` for the rest.
 */
export function accessLevel(path: string, status: number): 'debug' | 'info' {
  return status < 400 && PROBES.has(path) ? 'debug' : 'info';
}

/** A request line may carry an absolute URL (`GET http://host/path`): its path is what counts. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** loggedPath() is the request path as the access log shows it: no query, no credentials. */
export function loggedPath(target: string): string {
  const origin = target.startsWith('/') ? null : ORIGIN.exec(target);
  const url = origin ? target.slice(origin[0].length) : target;
  if (!url.startsWith('/')) return '…';
  const q = url.search(/[?#]/);
  let path = q < 0 ? url : url.slice(0, q);
  for (const secret of SECRET_TAIL) path = path.replace(secret, '$1…');
  return q < 0 ? path : `${path}?…`;
}

function contentLength(res: Response): number | undefined {
  const header = res.getHeader('content-length');
  const bytes = typeof header === 'string' ? Number(header) : header;
  return typeof bytes === 'number' && Number.isFinite(bytes) ? bytes : undefined;
}

function write(req: Request, res: Response, started: number): void {
  logEvent(accessLevel(req.path, res.statusCode), 'request', {
    method: req.method,
    path: loggedPath(req.originalUrl),
    status: res.statusCode,
    ms: Math.round((performance.now() - started) * 10) / 10,
    bytes: contentLength(res),
    remote: req.ip,
    ...(res.writableFinished ? null : { aborted: true }),
  });
}

/** accessLogEnabled() is false when HERALD_ACCESS_LOG turns the access log off. */
export function accessLogEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.HERALD_ACCESS_LOG?.trim().toLowerCase();
  return !(value === '0' || value === 'false' || value === 'off' || value === 'no');
}

/** The access log middleware; the first one a request meets. */
export const accessLog: RequestHandler = (req, res, next) => {
  // Below the threshold nothing is built and no listener is added.
  if (logEnabled('info')) {
    const started = performance.now();
    // 'close' follows 'finish' on a completed answer, and comes alone on an aborted one.
    res.once('close', () => write(req, res, started));
  }
  next();
};
