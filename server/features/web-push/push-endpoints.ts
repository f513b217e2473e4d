import { isLoopbackHost } from '../../config/web-push-endpoints';
import { AppError } from '../../lib/errors';

/**
 * The SSRF guard of Web Push: Herald sends a request to whatever endpoint a subscription
 * names, so a signed-in person could otherwise make it POST to any host its network reaches.
 * Only the browsers' push services are let through, on https and their default port, plus the
 * origins HERALD_WEB_PUSH_ENDPOINTS adds.
 */
const KNOWN_PUSH_SERVICES: ReadonlyArray<{ host: string; subdomains: boolean; who: string }> = [
  { host: 'fcm.googleapis.com', subdomains: false, who: 'Google FCM (Chrome, Edge, Android)' },
  { host: 'updates.push.services.mozilla.com', subdomains: false, who: 'Mozilla (Firefox)' },
  { host: 'push.services.mozilla.com', subdomains: false, who: 'Mozilla (Firefox)' },
  { host: 'notify.windows.com', subdomains: true, who: 'Microsoft WNS' },
  { host: 'web.push.apple.com', subdomains: false, who: 'Apple (Safari)' },
];

/** The hosts the refusal names, so whoever reads it knows what would be accepted. */
const KNOWN_LIST =
  'fcm.googleapis.com, updates.push.services.mozilla.com, push.services.mozilla.com, *.notify.windows.com, web.push.apple.com';

/**
 * Why `endpoint` may not be pushed to, or null when it may. `extraOrigins` are the parsed
 * HERALD_WEB_PUSH_ENDPOINTS.
 */
export function endpointRefusal(endpoint: string, extraOrigins: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'is not a URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  if (extraOrigins.includes(url.origin)) {
    // An http origin was only accepted for a loopback host; checked again for a hand-made list.
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return 'must use https';
    return null;
  }
  if (url.protocol !== 'https:') return 'must use https';
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const known = KNOWN_PUSH_SERVICES.some(
    (s) => host === s.host || (s.subdomains && host.endsWith(`.${s.host}`)),
  );
  if (!known || url.port !== '') {
    return `is not a known push service (${KNOWN_LIST}); HERALD_WEB_PUSH_ENDPOINTS adds others`;
  }
  return null;
}

/** Throws the console's 400 when `endpoint` may not be pushed to. */
export function checkEndpoint(endpoint: string, extraOrigins: readonly string[]): void {
  const why = endpointRefusal(endpoint, extraOrigins);
  if (why) throw new AppError(400, `endpoint: ${why}`);
}
