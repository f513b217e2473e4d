import { hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  decodeRawKey,
  keyFromValue,
  parseServerKeySource,
  type ServerKeySource,
} from '../config/server-key-source';
import { readerHint } from '../config/secret-variable';

export const KEY_FILE = 'secret.key';

export interface ServerKey {
  key: Buffer;
  /** Where it came from, for messages: a variable's name or a file's path, never the key. */
  origin: string;
  /**
   * HERALD_SECRET_KEY written as a key file writes it but without `base64:`, so read as a
   * passphrase: the key it would be, so a refusal can say to add the prefix.
   */
  unprefixedKey?: Buffer;
}

/**
 * A server key is 32 bytes, or 64 after a rotation that kept the tokens (herald rotate-key):
 * the sealing key, then the token key. A 32-byte key is both. The file holds it in base64.
 */
export const SERVER_KEY_LENGTHS: readonly number[] = [32, 64];

export const isServerKeyLength = (key: Buffer) => SERVER_KEY_LENGTHS.includes(key.length);

/** What stored secrets are sealed with. */
export function sealingPart(master: Buffer): Buffer {
  return master.length === 64 ? master.subarray(0, 32) : master;
}

/** What tokens (and the install id) derive from: kept across a rotation without --tokens. */
export function tokenPart(master: Buffer): Buffer {
  return master.length === 64 ? master.subarray(32) : master;
}

/**
 * The key the source names, or null when the source is the data folder and its key file does
 * not exist yet (the caller decides whether a new one may be made: not for a database that
 * already holds a fingerprint).
 */
export function readServerKey(source: ServerKeySource, dataDir: string): ServerKey | null {
  if (source.kind === 'env') {
    const key = keyFromValue(source.value, source.name);
    const unprefixedKey = decodeRawKey(source.value) ?? undefined;
    return { key, origin: source.name, ...(unprefixedKey ? { unprefixedKey } : {}) };
  }
  if (source.kind === 'file') {
    const origin = `${source.name} (${source.path})`;
    let text: string;
    try {
      text = readFileSync(source.path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new Error(
        `${origin} cannot be read (${code}): it must name the key file${readerHint(code)}`,
      );
    }
    const key = decodeRawKey(text);
    if (!key) {
      throw new Error(
        `${origin} does not hold a 32-byte key in base64 (the form of secret.key, which holds 64 ` +
          'bytes after `herald rotate-key`; ' +
          '`openssl rand -base64 32` makes one)',
      );
    }
    return { key, origin };
  }
  const file = join(dataDir, KEY_FILE);
  if (!existsSync(file)) return null;
  // As lenient as it has always been, so no existing folder stops starting.
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (!isServerKeyLength(key)) throw new Error(`${file} is not a 32- or 64-byte base64 key`);
  return { key, origin: file };
}

/** A new random key in the data folder, owner-only. */
export function createDataDirKey(dataDir: string): ServerKey {
  const file = join(dataDir, KEY_FILE);
  const key = randomBytes(32);
  // 'wx' so two processes starting at once never overwrite each other's key.
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { key, origin: file };
}

/**
 * The master key from HERALD_SECRET_KEY, HERALD_SECRET_KEY_FILE or the data folder (created
 * there if missing). For tools that work on a stopped Herald's folder; the server itself
 * resolves the key against the database's fingerprint (composition.ts).
 */
export function loadServerKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const source = parseServerKeySource(env.HERALD_SECRET_KEY, env.HERALD_SECRET_KEY_FILE);
  return (readServerKey(source, dataDir) ?? createDataDirKey(dataDir)).key;
}

/** Whether a key is known without making one: configured, or already in the data folder. */
export function serverKeyExists(dataDir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const source = parseServerKeySource(env.HERALD_SECRET_KEY, env.HERALD_SECRET_KEY_FILE);
  return source.kind !== 'data-dir' || existsSync(join(dataDir, KEY_FILE));
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
  return deriveKey(tokenPart(master), 'install-id').subarray(0, 9).toString('base64url');
}
