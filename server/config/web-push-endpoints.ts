/**
 * HERALD_WEB_PUSH_ENDPOINTS (docs/reader.md "Web Push"): push service origins a subscription's
 * endpoint may point at besides the known ones, as `https://host[:port]` separated by commas.
 * Plain http is taken only for a loopback host (a test's local push service): anything else
 * would send people's notifications, and Herald's VAPID signature, in clear.
 */
export function parseWebPushEndpoints(
  value: string | undefined,
  name = 'HERALD_WEB_PUSH_ENDPOINTS',
): string[] {
  if (value === undefined || value.trim() === '') return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((given) => {
      let url: URL;
      try {
        url = new URL(given);
      } catch {
        throw new Error(`${name}: "${given}" is not an origin like https://push.example.com`);
      }
      if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
        throw new Error(
          `${name}: "${given}" must be an origin only (scheme, host and port, no path)`,
        );
      }
      if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
        throw new Error(`${name}: "${given}" may use http only on a loopback host; use https`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        throw new Error(`${name}: "${given}" must be an https:// origin`);
      }
      return url.origin;
    });
}

/** 127.0.0.0/8, ::1 and localhost: the machine itself. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
