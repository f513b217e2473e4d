import { randomBytes } from 'node:crypto';

/**
 * Share links of hosted messages: `<public base URL>/preview/<key>` opens one message without
 * login. Keys are 128 random bits (22 base64url characters), so they cannot be guessed or
 * enumerated; Message Nest's imported keys (16 letters and digits) keep working as they are.
 */
export const PREVIEW_KEY_BYTES = 16;

/** Letters, digits, `_` and `-`: what Herald writes and what Message Nest wrote. */
const KEY_SHAPE = /^[A-Za-z0-9_-]{8,64}$/;

export function newPreviewKey(): string {
  return randomBytes(PREVIEW_KEY_BYTES).toString('base64url');
}

/** A key that could be stored; anything else is answered like an unknown key. */
export function isPreviewKeyShaped(key: string): boolean {
  return KEY_SHAPE.test(key);
}

/** The absolute share link; `base` is the public base URL (no trailing slash needed). */
export function previewUrl(base: string, key: string): string {
  return `${base.replace(/\/+$/, '')}/preview/${key}`;
}
