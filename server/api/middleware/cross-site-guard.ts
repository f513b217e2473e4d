import type { NextFunction, Request, Response } from 'express';

import { sendEnvelope } from '../../lib/envelope';

export interface CrossSiteGuardOptions {
  /** What the guard protects, for the refusal msg ("the send API", "the console API"). */
  what: string;
  /** Origins a browser may call from (HERALD_CORS_ORIGINS); they also get CORS answers. */
  corsOrigins: string[];
  /** Whether the refusal msg points at HERALD_CORS_ORIGINS (only where listing helps). */
  corsHint: boolean;
}

/** Whether an Origin header names the scheme-less host:port the request was addressed to. */
export function isOwnOrigin(origin: string, hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file://) and garbage are never Herald's own pages
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  try {
    // Read the Host with the origin's scheme so a default port (":80", ":443") compares equal.
    return new URL(`${url.protocol}//${hostHeader}`).host === url.host;
  } catch {
    return false;
  }
}

/**
 * Refuses requests a browser makes on behalf of another site (Fetch Metadata and Origin), so
 * a web page cannot send messages or drive the console through the user's browser — simple
 * form and text/plain requests included. Requests without those headers (curl, scripts, HTTP
 * libraries) pass: only browsers add them, and a browser never lets a page remove them.
 */
export function createCrossSiteGuard(opts: CrossSiteGuardOptions) {
  const cors = new Set(opts.corsOrigins);

  return function crossSiteGuard(req: Request, res: Response, next: NextFunction): void {
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];

    if (origin !== undefined && cors.has(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.append('Vary', 'Origin');
      if (req.method === 'OPTIONS') {
        res.setHeader('Access-Control-Allow-Methods', 'POST');
        res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Idempotency-Key');
        res.setHeader('Access-Control-Max-Age', '600');
        res.status(204).end();
        return;
      }
      next();
      return;
    }

    let reason: string | undefined;
    if (site === 'cross-site' || site === 'same-site') {
      reason = `the browser marked it Sec-Fetch-Site: ${site}${origin ? ` (from ${origin})` : ''}`;
    } else if (
      // When the browser sends Fetch Metadata it has already compared origins itself, which
      // stays right behind a proxy that rewrites Host; without it, Origin must match Host.
      site !== 'same-origin' &&
      site !== 'none' &&
      origin !== undefined &&
      !isOwnOrigin(origin, req.headers.host)
    ) {
      reason = `it comes from a page on ${origin.slice(0, 200)}, not from Herald's own origin`;
    }
    if (reason === undefined) {
      next();
      return;
    }
    sendEnvelope(
      res,
      403,
      `cross-site request refused: ${reason}. Web pages on other sites cannot call ${opts.what}${opts.corsHint ? ' unless their origin is listed in HERALD_CORS_ORIGINS' : ''}; scripts that send no Origin or Sec-Fetch-Site header are not affected`,
      null,
    );
  };
}
