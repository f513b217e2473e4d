import { isIP } from 'node:net';

/** The names Express ('trust proxy') knows for address ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Parses HERALD_TRUST_PROXY: the reverse proxies whose X-Forwarded-* headers Herald believes
 * (so `req.secure` and `req.ip` follow X-Forwarded-Proto/-For from them, and from no one else).
 * Unset or empty trusts no one. Each entry is `loopback`, `linklocal`, `uniquelocal`, an address
 * or an address/prefix. "true" or "*" is refused: trusting every hop lets any client fake HTTPS
 * and its own address.
 */
export function parseTrustProxy(value: string | undefined): string[] | false {
  const entries = (value ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  if (entries.length === 0) return false;
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const validPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= 128);
    const valid =
      extra === undefined &&
      ((prefix === undefined && RANGE_NAMES.has(entry)) ||
        (isIP(address ?? '') !== 0 && validPrefix));
    if (!valid) {
      throw new Error(
        `HERALD_TRUST_PROXY: "${entry}" is not a proxy address; list the proxies Herald sits behind, ` +
          'comma-separated: loopback, linklocal, uniquelocal, an IP address or an address/prefix (e.g. "loopback" or "10.0.0.5")',
      );
    }
  }
  return entries;
}
