import type { publicRoutes } from '@contract';

import { call, PUBLIC_API_BASE } from './http-client';

/**
 * The calls a page without login makes: a hosted message by its share-link key. No session
 * cookie goes with it, and a 401 leaves the visitor where they are instead of sending them to
 * sign-in.
 */
export const publicApi = {
  preview: (key: string) =>
    call<typeof publicRoutes.preview.preview>('GET', `/preview/${encodeURIComponent(key)}`, {
      base: PUBLIC_API_BASE,
      credentials: 'omit',
      redirectOn401: false,
    }),
};

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
