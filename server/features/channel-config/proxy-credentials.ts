import { SecretBox } from '../../crypto/secret-box';
import type { MigrationHelpers } from '../../db/migrate';
import { AppError } from '../../lib/errors';
import { SECRET_MASK } from './channel-secrets';

/**
 * A channel's `proxy` URL may embed `user:password@`. Such a proxy URL is a secret: sealed as a
 * whole at rest, and shown to the console with its password (or a lone user name, which is then
 * the credential) replaced by the mask, so the proxy host stays visible and editable. A proxy
 * URL without credentials is stored and shown as is.
 */
type Config = Record<string, unknown>;

function parse(proxy: string): URL | null {
  try {
    return new URL(proxy);
  } catch {
    return null;
  }
}

function hasCredentials(proxy: string): boolean {
  const url = parse(proxy);
  return url !== null && (url.username !== '' || url.password !== '');
}

/** Seals a proxy URL that carries credentials. */
export function sealProxy(config: Config, box: SecretBox): Config {
  const proxy = config.proxy;
  if (typeof proxy !== 'string' || SecretBox.isSealed(proxy) || !hasCredentials(proxy))
    return config;
  return { ...config, proxy: box.seal(proxy) };
}

/**
 * What a migration that seals an older version's clear proxy credentials borrows
 * (db/migrations/2026-11-30-1000-seal-proxy-credentials.ts): db/ holds no key.
 */
export function proxySealing(box: SecretBox): MigrationHelpers {
  return { sealProxy: (config) => sealProxy(config, box) };
}

export function openProxy(config: Config, box: SecretBox): Config {
  return SecretBox.isSealed(config.proxy) ? { ...config, proxy: box.open(config.proxy) } : config;
}

/** The proxy URL as the console sees it: `http://user:******@host:port`. */
export function maskProxy(config: Config): Config {
  const proxy = config.proxy;
  if (typeof proxy !== 'string') return config;
  const url = parse(proxy);
  if (!url || (url.username === '' && url.password === '')) return config;
  if (url.password !== '') url.password = SECRET_MASK;
  else url.username = SECRET_MASK;
  return { ...config, proxy: url.href };
}

/** Everything of a proxy URL but its secret part: what must match for the secret to be kept. */
function destinationOf(url: URL, keepsUsername: boolean): string {
  return JSON.stringify([
    url.protocol,
    url.hostname,
    url.port,
    url.pathname,
    keepsUsername ? url.username : '',
  ]);
}

/**
 * Applies a console edit of the proxy. A masked credential is replaced by the stored one only
 * when the proxy is otherwise unchanged; sent towards another proxy server it is refused, so the
 * stored proxy password never goes to a new host.
 */
export function mergeProxyEdit(stored: Config, edit: Config): Config {
  const proxy = edit.proxy;
  if (typeof proxy !== 'string' || !proxy.includes(SECRET_MASK)) return edit;
  const editUrl = parse(proxy);
  const before = typeof stored.proxy === 'string' ? stored.proxy : '';
  const storedUrl = before ? parse(before) : null;
  const masksPassword = editUrl?.password === SECRET_MASK;
  const masksUsername = editUrl?.username === SECRET_MASK && editUrl.password === '';
  const kept =
    editUrl !== null &&
    storedUrl !== null &&
    ((masksPassword && storedUrl.password !== '') ||
      (masksUsername && storedUrl.username !== '' && storedUrl.password === '')) &&
    destinationOf(editUrl, masksPassword) === destinationOf(storedUrl, masksPassword);
  if (!kept) {
    throw new AppError(
      400,
      'config: re-enter the proxy password: the proxy server changed (proxy). ' +
        'Herald never sends a stored password to a new proxy; type it in the proxy URL, as http://user:password@host:port',
      { reenter: ['proxy'], changed: ['proxy'] },
    );
  }
  return { ...edit, proxy: before };
}
