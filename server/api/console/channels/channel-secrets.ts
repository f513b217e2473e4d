import { SecretBox } from '../../../crypto/secret-box';

/** What the console sees in place of a stored secret. */
export const SECRET_MASK = '******';

/** Seals the adapter's secret fields before a config is stored. */
export function sealSecrets(
  config: Record<string, unknown>,
  secretFields: readonly string[],
  box: SecretBox,
): Record<string, unknown> {
  const out = { ...config };
  for (const field of secretFields) {
    const value = out[field];
    if (typeof value === 'string' && value.length > 0 && !SecretBox.isSealed(value))
      out[field] = box.seal(value);
  }
  return out;
}

export function openSecrets(
  config: Record<string, unknown>,
  secretFields: readonly string[],
  box: SecretBox,
): Record<string, unknown> {
  const out = { ...config };
  for (const field of secretFields) {
    const value = out[field];
    if (typeof value === 'string') out[field] = box.open(value);
  }
  return out;
}

/** Replaces every set secret with the mask; the console never receives one in clear. */
export function maskSecrets(
  config: Record<string, unknown>,
  secretFields: readonly string[],
): Record<string, unknown> {
  const out = { ...config };
  for (const field of secretFields) {
    const value = out[field];
    out[field] = typeof value === 'string' && value.length > 0 ? SECRET_MASK : '';
  }
  return out;
}

/**
 * Applies an edit from the console: a secret sent back as the mask, or left out, keeps its
 * stored value; an empty string clears it. Returns the config in clear, ready to validate.
 */
export function mergeSecretEdits(
  stored: Record<string, unknown>,
  edit: Record<string, unknown>,
  secretFields: readonly string[],
): Record<string, unknown> {
  const out = { ...edit };
  for (const field of secretFields) {
    if (!(field in edit) || edit[field] === SECRET_MASK) {
      if (field in stored) out[field] = stored[field];
      else delete out[field];
    } else if (edit[field] === '') {
      delete out[field];
    }
  }
  return out;
}
