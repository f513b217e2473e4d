/**
 * Settings of the HTTP-layer guards (host allow-list, cross-site check, connection cap), read
 * from HERALD_* variables or CLI flags. A bad value stops Herald at start with a message that
 * names the variable, rather than silently weakening a guard.
 */

export const DEFAULT_MAX_CONNECTIONS = 1024;

export interface HttpGuardSettings {
  /** Extra Host names Herald answers to (any port), besides loopback and the listen address. */
  allowedHosts: string[];
  /** Web origins allowed to call the send APIs from a browser (CORS). */
  corsOrigins: string[];
  maxConnections: number;
}

const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:\d{1,5})?$/i;

/**
 * The hostname a Host header (or an allow-list entry) names, lower-cased, without port or
 * trailing dot, IPv6 in brackets; undefined when it is not a plain host[:port].
 */
export function hostnameOf(host: string): string | undefined {
  const text = host.trim();
  if (!HOST_HEADER.test(text)) return undefined;
  try {
    // URL normalises the spellings browsers treat as the same host (case, 127.1, ::0:1).
    return new URL(`http://${text}`).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

function splitList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Parses HERALD_ALLOWED_HOSTS: host names or addresses, comma-separated (a port is ignored). */
export function parseAllowedHosts(
  text: string | undefined,
  what = 'HERALD_ALLOWED_HOSTS',
): string[] {
  return splitList(text).map((entry) => {
    // An IPv6 address written without brackets is accepted too.
    const bracketed = entry.includes(':') && !entry.startsWith('[') && entry.split(':').length > 2;
    const name = hostnameOf(bracketed ? `[${entry}]` : entry);
    if (name === undefined) {
      throw new Error(
        `${what}: "${entry}" is not a host name or address (write e.g. herald.example.com,192.168.1.5)`,
      );
    }
    return name;
  });
}

/** Parses HERALD_CORS_ORIGINS: web origins (scheme://host[:port]), comma-separated. */
export function parseCorsOrigins(text: string | undefined, what = 'HERALD_CORS_ORIGINS'): string[] {
  return splitList(text).map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const bare =
      url !== undefined &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === '';
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !bare) {
      throw new Error(
        `${what}: "${entry}" is not a web origin (write scheme://host[:port] with no path, e.g. https://dashboard.example.com)`,
      );
    }
    return url.origin;
  });
}

/** Parses HERALD_MAX_CONNECTIONS: a positive integer, default 1024. */
export function parseMaxConnections(
  text: string | undefined,
  what = 'HERALD_MAX_CONNECTIONS',
): number {
  if (text === undefined || text.trim() === '') return DEFAULT_MAX_CONNECTIONS;
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`${what} must be a whole number of connections of at least 1, not "${text}"`);
  }
  return n;
}

export function httpGuardSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): HttpGuardSettings {
  return {
    allowedHosts: parseAllowedHosts(env.HERALD_ALLOWED_HOSTS),
    corsOrigins: parseCorsOrigins(env.HERALD_CORS_ORIGINS),
    maxConnections: parseMaxConnections(env.HERALD_MAX_CONNECTIONS),
  };
}
