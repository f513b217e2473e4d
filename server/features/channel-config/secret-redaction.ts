import { SECRET_MASK } from './channel-secrets';

/**
 * A test send answers the platform's reply and error text to the console, and a platform (or a
 * webhook receiver) may echo what it was sent: a token in a URL, an Authorization header. The
 * console never sees a secret in clear, so every secret of the config tried is masked in them.
 */

type Config = Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The proxy URL's user name and password, when it carries them. */
function proxyCredentials(proxy: unknown): string[] {
  if (typeof proxy !== 'string') return [];
  try {
    const url = new URL(proxy);
    return [url.username, url.password, decodeURIComponent(url.password)];
  } catch {
    return [];
  }
}

/** Every secret a config holds in clear: its secret fields (a map's values) and proxy credentials. */
export function secretValues(config: Config, secretFields: readonly string[]): string[] {
  const values: string[] = [];
  for (const field of secretFields) {
    const value = config[field];
    if (typeof value === 'string') values.push(value);
    else if (isRecord(value))
      for (const v of Object.values(value)) if (typeof v === 'string') values.push(v);
  }
  values.push(...proxyCredentials(config.proxy));
  return values.filter((v) => v !== '' && v !== SECRET_MASK);
}

/** Each secret as it may appear in a reply: as is, URL-encoded, and escaped in JSON. */
function spellings(secret: string): string[] {
  return [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
}

/** The text with every spelling of every secret replaced by the mask; longest first. */
export function redactSecrets(text: string | null, secrets: readonly string[]): string | null {
  if (text === null || secrets.length === 0) return text;
  const all = [...new Set(secrets.flatMap(spellings))]
    .filter((s) => s !== '')
    .sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of all) out = out.split(secret).join(SECRET_MASK);
  return out;
}
