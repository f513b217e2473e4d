import { createHmac, timingSafeEqual } from 'node:crypto';

import { IMAGE_PROXY_PATH } from '../../../contract/console/image-proxy';
import { deriveKey } from '../../crypto/server-key';
import { AppError } from '../../lib/errors';

/** How long a signed image address stays good: a reader keeps a message open for a while. */
export const SIGNATURE_LIFETIME_S = 24 * 60 * 60;

/** The longest remote address Herald signs; a longer one stays out of the message. */
const MAX_URL_LENGTH = 4096;

/**
 * Signs remote image addresses for the image proxy. The key is derived from the server key and
 * never leaves the server, so only an address Herald put into a message it served passes: the
 * proxy cannot be used to fetch whatever a client names.
 */
export class ImageSigner {
  private readonly key: Buffer;

  constructor(
    masterKey: Buffer,
    private readonly nowMs: () => number,
  ) {
    this.key = deriveKey(masterKey, 'image-proxy');
  }

  /** The signature over an address and its expiry (Unix seconds), base64url. */
  signature(url: string, exp: number): string {
    return createHmac('sha256', this.key).update(`${exp}\n${url}`).digest('base64url');
  }

  /**
   * The proxy address for a remote image, or null for an address Herald does not proxy (not
   * absolute http(s), credentials in it, too long): such an image is left out of the message.
   */
  proxied(src: string, exp = this.expiry()): string | null {
    const url = remoteImageUrl(src);
    if (url === null) return null;
    const query = new URLSearchParams({ url, exp: String(exp), sig: this.signature(url, exp) });
    return `${IMAGE_PROXY_PATH}?${query.toString()}`;
  }

  /** Throws a 400 naming what is wrong unless `sig` is this server's signature, still good. */
  check(url: string, exp: number, sig: string): void {
    const expected = Buffer.from(this.signature(url, exp));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new AppError(
        400,
        'sig: does not match the address: proxied image addresses are signed by Herald when it serves a message',
      );
    }
    if (exp * 1000 <= this.nowMs()) {
      throw new AppError(400, 'exp: the signed image address has expired: open the message again');
    }
  }

  /**
   * A day from now, rounded up to the hour: the same image opened again within the hour gets the
   * same address, so the reader's browser answers it from its own cache.
   */
  private expiry(): number {
    const exp = Math.floor(this.nowMs() / 1000) + SIGNATURE_LIFETIME_S;
    return Math.ceil(exp / 3600) * 3600;
  }
}

/** The absolute http(s) address an image's src names, normalised, or null. */
export function remoteImageUrl(src: string): string | null {
  let url: URL;
  try {
    url = new URL(src.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  // The fragment never reaches the server.
  url.hash = '';
  return url.href.length > MAX_URL_LENGTH ? null : url.href;
}
