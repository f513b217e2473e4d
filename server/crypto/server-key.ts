import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const KEY_FILE = 'secret.key';

/**
 * Loads the server's master key: `HERALD_SECRET_KEY` when given (any string; hashed to 32 bytes),
 * else `secret.key` in the data dir, created at first start with owner-only permissions.
 */
export function loadServerKey(dataDir: string, envKey = process.env.HERALD_SECRET_KEY): Buffer {
  if (envKey && envKey.length > 0) {
    return createHash('sha256').update(envKey, 'utf8').digest();
  }
  const file = join(dataDir, KEY_FILE);
  if (existsSync(file)) {
    const raw = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (raw.length !== 32) throw new Error(`${file} is not a 32-byte base64 key`);
    return raw;
  }
  const key = randomBytes(32);
  // 'wx' so two processes starting at once never overwrite each other's key.
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}

/** Derives an independent sub-key so tokens and stored secrets never share key material. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `herald:${purpose}`, 32));
}

/**
 * A short id of this install (of its master key), not a secret: webhook signing puts it in
 * `webhook-id` so ids from two Heralds posting to one receiver never collide. It is derived, so
 * it stays stable across restarts and reveals nothing of the key.
 */
export function deriveInstallId(master: Buffer): string {
  return deriveKey(master, 'install-id').subarray(0, 9).toString('base64url');
}
