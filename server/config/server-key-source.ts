import { createHash } from 'node:crypto';

/**
 * Where the server key comes from, read with the rest of the config so that a bad value stops
 * the start with the variable's name before anything is opened. Reading and creating the key
 * itself is crypto/server-key.ts's.
 */

/** `HERALD_SECRET_KEY=base64:…` carries the 32 key bytes themselves, as in secret.key. */
const RAW_KEY_PREFIX = 'base64:';

/**
 * Where this process takes its master key from. Every process on one database must end up
 * with the same key (the database holds its fingerprint, see key-fingerprint.ts).
 */
export type ServerKeySource =
  /** HERALD_SECRET_KEY: `base64:` and the 32 bytes, or any other string (hashed). */
  | { kind: 'env'; value: string; name: string }
  /** HERALD_SECRET_KEY_FILE: a file holding the 32 bytes in base64, like secret.key. */
  | { kind: 'file'; path: string; name: string }
  /** Neither: `secret.key` in the data folder, created at first start. */
  | { kind: 'data-dir' };

/**
 * Picks the key's source from the variables (or the options that stand for them). Checked with
 * the rest of the config, so a bad value stops the start before anything is opened.
 */
export function parseServerKeySource(
  value: string | undefined,
  file: string | undefined,
  names = { value: 'HERALD_SECRET_KEY', file: 'HERALD_SECRET_KEY_FILE' },
): ServerKeySource {
  const hasValue = value !== undefined && value !== '';
  const hasFile = file !== undefined && file.trim() !== '';
  if (hasValue && hasFile) {
    throw new Error(
      `${names.value} and ${names.file} are both set: give the key one way only, so there is no doubt which one Herald uses`,
    );
  }
  if (hasValue) {
    // Decoded here so a malformed key stops the start with the variable's name.
    keyFromValue(value, names.value);
    return { kind: 'env', value, name: names.value };
  }
  if (hasFile) return { kind: 'file', path: file.trim(), name: names.file };
  return { kind: 'data-dir' };
}

export function keyFromValue(value: string, name: string): Buffer {
  if (value.startsWith(RAW_KEY_PREFIX)) {
    const key = decodeRawKey(value.slice(RAW_KEY_PREFIX.length));
    if (!key) {
      throw new Error(
        `${name} starts with "${RAW_KEY_PREFIX}" but what follows is not 32 bytes in base64 ` +
          '(the form of secret.key; `openssl rand -base64 32` makes one)',
      );
    }
    return key;
  }
  // Any other string is a passphrase: Herald has always hashed it, so existing setups keep their key.
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Strict: standard base64 of exactly 32 bytes, or 64 (a key file after `herald rotate-key`:
 * the sealing key, then the token key), so a truncated or mangled copy is refused. Spaces and
 * the newline a key file ends with are not part of it.
 */
export function decodeRawKey(text: string): Buffer | null {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64');
  return (key.length === 32 || key.length === 64) && key.toString('base64') === trimmed
    ? key
    : null;
}
