import { SecretBox } from '../../crypto/secret-box';

/** What the console sees in place of a stored secret. */
export const SECRET_MASK = '******';

type Config = Record<string, unknown>;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Applies `fn` to every secret string: a secret field is either a string, or a map whose every
 * value is a secret (a webhook's secret headers).
 */
function mapSecrets(
  config: Config,
  secretFields: readonly string[],
  fn: (value: string) => string,
): Config {
  const out = { ...config };
  for (const field of secretFields) {
    const value = out[field];
    if (typeof value === 'string') out[field] = fn(value);
    else if (isRecord(value)) {
      out[field] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? fn(v) : v]),
      );
    }
  }
  return out;
}

/** Seals the adapter's secret fields before a config is stored. */
export function sealSecrets(
  config: Config,
  secretFields: readonly string[],
  box: SecretBox,
): Config {
  return mapSecrets(config, secretFields, (v) =>
    v.length > 0 && !SecretBox.isSealed(v) ? box.seal(v) : v,
  );
}

export function openSecrets(
  config: Config,
  secretFields: readonly string[],
  box: SecretBox,
): Config {
  return mapSecrets(config, secretFields, (v) => box.open(v));
}

/** Replaces every set secret with the mask; the console never receives one in clear. */
export function maskSecrets(config: Config, secretFields: readonly string[]): Config {
  const masked = mapSecrets(config, secretFields, (v) => (v.length > 0 ? SECRET_MASK : ''));
  for (const field of secretFields) if (masked[field] === undefined) masked[field] = '';
  return masked;
}

/**
 * Applies an edit from the console: a secret sent back as the mask, or left out, keeps its
 * stored value; an empty string clears it. In a map of secrets the same holds per key, and a
 * key left out is removed. Returns the config in clear, ready to validate.
 */
export function mergeSecretEdits(
  stored: Config,
  edit: Config,
  secretFields: readonly string[],
): Config {
  const out = { ...edit };
  for (const field of secretFields) {
    const before = stored[field];
    const after = edit[field];
    if (isRecord(after)) {
      const kept = isRecord(before) ? before : {};
      out[field] = Object.fromEntries(
        Object.entries(after).map(([k, v]) => [k, v === SECRET_MASK && k in kept ? kept[k] : v]),
      );
    } else if (!(field in edit) || after === SECRET_MASK) {
      if (field in stored) out[field] = before;
      else delete out[field];
    } else if (after === '') {
      delete out[field];
    }
  }
  return out;
}
