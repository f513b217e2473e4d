/**
 * Signing in from a trusted reverse proxy's header (issue 44 §2): Authelia, Authentik,
 * oauth2-proxy and the like sign the person in and pass their name on in a request header.
 * HERALD_AUTH_PROXY_HEADER names that header; unset, no header signs anyone in.
 */
export interface AuthProxyConfig {
  /** The user's header, lower-cased as Node keys `req.headers` (`remote-user`). */
  header: string;
  /** The groups header, lower-cased, or null: then roles are managed in Herald. */
  groupsHeader: string | null;
  /** Where sign-out sends the browser to end the proxy's session too, or null. */
  logoutUrl: string | null;
  /** Whether a name Herald has no account for gets one (a viewer unless a group says more). */
  autoCreate: boolean;
  /** The headers' names as the variables spell them, for Settings → Sign-in and messages. */
  names: AuthProxyNames;
}

export interface AuthProxyNames {
  header: string;
  groupsHeader: string | null;
}

const ON = new Set(['1', 'true', 'on', 'yes']);
const OFF = new Set(['0', 'false', 'off', 'no']);

/** RFC 9110's token: the characters a header's name may have. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Headers that mean something else to Herald or to HTTP: naming one would let the session
 * cookie, the send token or the forwarded address stand for a username.
 */
const RESERVED_HEADERS = new Set([
  'authorization',
  'cookie',
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'origin',
  'referer',
  'user-agent',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'idempotency-key',
]);

function headerName(variable: string, value: string): string {
  const name = value.trim();
  if (!HEADER_NAME.test(name)) {
    throw new Error(
      `${variable}: "${value}" is not a header name; give the name the proxy sets, such as Remote-User`,
    );
  }
  if (RESERVED_HEADERS.has(name.toLowerCase())) {
    throw new Error(
      `${variable}: "${name}" is a standard header with another meaning; give the header the proxy sets for the user, such as Remote-User`,
    );
  }
  return name;
}

/** An http(s) URL, or a path on Herald's own origin (`/oauth2/sign_out`). */
function logoutUrl(value: string | undefined): string | null {
  const url = (value ?? '').trim();
  if (url === '') return null;
  if (url.startsWith('/') && !url.startsWith('//') && !/[\s\\]/.test(url)) return url;
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
    throw new Error(
      `HERALD_AUTH_PROXY_LOGOUT_URL: "${url}" is not an http(s) URL or a path; give the proxy's sign-out address, such as https://auth.example.com/logout`,
    );
  }
  return url;
}

function autoCreate(value: string | undefined): boolean {
  const flag = (value ?? '').trim().toLowerCase();
  if (flag === '' || ON.has(flag)) return true;
  if (OFF.has(flag)) return false;
  throw new Error(
    `HERALD_AUTH_PROXY_AUTO_CREATE must be 1 (make an account for a new name) or 0, not "${value}"`,
  );
}

/**
 * Reads HERALD_AUTH_PROXY_*. A header that anyone could send would let anyone be anyone, so it
 * counts only from HERALD_TRUST_PROXY's addresses: without them the start is refused.
 */
export function parseAuthProxyConfig(
  env: NodeJS.ProcessEnv,
  trustProxy: string[] | false,
): AuthProxyConfig | null {
  const header = (env.HERALD_AUTH_PROXY_HEADER ?? '').trim();
  if (header === '') {
    const stray = ['GROUPS_HEADER', 'LOGOUT_URL', 'AUTO_CREATE']
      .map((rest) => `HERALD_AUTH_PROXY_${rest}`)
      .find((name) => (env[name] ?? '').trim() !== '');
    if (stray) {
      throw new Error(
        `${stray} is set but HERALD_AUTH_PROXY_HEADER is not; set the header the proxy names the user in (such as Remote-User), or unset ${stray}`,
      );
    }
    return null;
  }
  const name = headerName('HERALD_AUTH_PROXY_HEADER', header);
  if (trustProxy === false) {
    throw new Error(
      'HERALD_AUTH_PROXY_HEADER is set but HERALD_TRUST_PROXY is not: anyone who reaches Herald could send the header and sign in as anyone. ' +
        'Set HERALD_TRUST_PROXY to the reverse proxy that signs people in (e.g. "10.0.0.5" or "loopback"), or unset HERALD_AUTH_PROXY_HEADER',
    );
  }
  const groupsValue = (env.HERALD_AUTH_PROXY_GROUPS_HEADER ?? '').trim();
  const groups =
    groupsValue === '' ? null : headerName('HERALD_AUTH_PROXY_GROUPS_HEADER', groupsValue);
  if (groups !== null && groups.toLowerCase() === name.toLowerCase()) {
    throw new Error(
      `HERALD_AUTH_PROXY_GROUPS_HEADER: "${groups}" is the user's header too; give the header the proxy sets the groups in, such as Remote-Groups`,
    );
  }
  return {
    header: name.toLowerCase(),
    groupsHeader: groups?.toLowerCase() ?? null,
    logoutUrl: logoutUrl(env.HERALD_AUTH_PROXY_LOGOUT_URL),
    autoCreate: autoCreate(env.HERALD_AUTH_PROXY_AUTO_CREATE),
    names: { header: name, groupsHeader: groups },
  };
}
