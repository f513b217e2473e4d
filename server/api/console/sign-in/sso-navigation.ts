import type { Request } from 'express';

import { consoleRoutes } from '../../../../contract';

/** The OpenID Connect round trip's two addresses: the browser is sent to them, it does not call them. */
const ROUND_TRIP = new Set<string>([
  consoleRoutes.signIn.oidcLogin.path,
  consoleRoutes.signIn.oidcCallback.path,
]);

/**
 * Whether a request is a browser's top-level navigation (GET, a document) to the OpenID Connect
 * login or callback. The console's cross-site guard lets these through: the provider's redirect
 * back is cross-site by nature (Sec-Fetch-Site: cross-site), and a portal may link to the login.
 * Neither can act for the person unasked: the login only starts a sign-in at the provider, and
 * the callback signs in only with the `state` and the sealed cookie of a sign-in this browser
 * started (server/features/sso/pending-login.ts). Fetches, frames and other methods stay
 * refused like every console route.
 */
export function isSsoNavigation(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (!ROUND_TRIP.has(req.originalUrl.split('?')[0]!)) return false;
  const mode = req.headers['sec-fetch-mode'];
  const dest = req.headers['sec-fetch-dest'];
  return (mode === undefined || mode === 'navigate') && (dest === undefined || dest === 'document');
}
