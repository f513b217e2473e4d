import { randomBytes } from 'node:crypto';

/**
 * Share links of hosted messages: `<public base URL>/preview/<key>` opens one message without
 * login. Keys are 128 random bits (22 base64url characters), so they cannot be guessed or
 * enumerated; Message Nest's imported keys (16 letters and digits) keep working as they are.
 */
export const PREVIEW_KEY_BYTES = 16;

/** Letters, digits, `_` and `-`: what Herald writes and what Message Nest wrote. */
const KEY_SHAPE = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * Random bytes drawn 4 KB at a time (as node's randomUUID does): one call into the CSPRNG per
 * 256 keys instead of one per hosted delivery accepted. Each byte is handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

export function newPreviewKey(): string {
  if (used + PREVIEW_KEY_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const key = pool.toString('base64url', used, used + PREVIEW_KEY_BYTES);
  used += PREVIEW_KEY_BYTES;
  return key;
}

/** A key that could be stored; anything else is answered like an unknown key. */
export function isPreviewKeyShaped(key: string): boolean {
  return KEY_SHAPE.test(key);
}

/** The absolute share link; `base` is the public base URL (no trailing slash needed). */
export function previewUrl(base: string, key: string): string {
  return `${base.replace(/\/+$/, '')}/preview/${key}`;
}
