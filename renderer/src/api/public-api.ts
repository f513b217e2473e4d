import { ApiError } from './http-client';
import type { PublicPreview } from './types';

/**
 * The one call a page without login makes: a hosted message by its share-link key. Outside the
 * console's client on purpose: no session cookie, no sign-in redirect.
 */
export async function fetchPreview(key: string): Promise<PublicPreview> {
  let res: Response;
  try {
    res = await fetch(`/api/public/preview/${encodeURIComponent(key)}`, {
      credentials: 'omit',
      headers: { Accept: 'application/json' },
    });
  } catch (err) {
    throw new ApiError(0, `Network error: ${(err as Error).message || 'server unreachable'}`);
  }
  let body: { code?: unknown; msg?: unknown; data?: unknown } | null;
  try {
    body = (await res.json()) as { code?: unknown; msg?: unknown; data?: unknown } | null;
  } catch {
    body = null;
  }
  const code = typeof body?.code === 'number' ? body.code : res.status;
  if (code !== 200 || !res.ok) {
    const msg = typeof body?.msg === 'string' ? body.msg : `HTTP ${res.status}`;
    throw new ApiError(code === 200 ? res.status : code, msg);
  }
  return body?.data as PublicPreview;
}

/**
 * Message Nest's share links are `/#/preview/<key>`: the browser asks for `/` and keeps the
 * key in the hash. Returns the key such a hash names, or null.
 */
export function previewKeyOfHash(hash: string): string | null {
  const match = /^#\/preview\/([^/?#]+)\/?(?:[?#].*)?$/.exec(hash);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}
