import { z } from 'zod';

import type { SecretBox } from '../../crypto/secret-box';

/**
 * An OpenID Connect sign-in between the redirect to the provider and its redirect back: the
 * `state`, `nonce` and PKCE verifier to check the answer against, and where to land. Kept in
 * the browser as a cookie sealed with the server key (AES-256-GCM: neither readable nor
 * forgeable) rather than in a table, so any of several Herald processes on one PostgreSQL
 * database can finish a sign-in another one started, and nothing is left to clean up.
 *
 * The cookie is httpOnly, SameSite=Lax (the provider's redirect back is a cross-site top-level
 * GET: a Strict cookie would not come with it), limited to the OpenID Connect routes' path, and
 * lives 10 minutes; the time inside it is checked too, since a cookie's own expiry is the
 * browser's to keep. The callback clears it, so the same browser cannot finish twice; a copy
 * replayed from elsewhere fails at the provider, which takes each code once.
 */
export const PENDING_COOKIE = 'herald_oidc';
export const PENDING_COOKIE_PATH = '/api/console/sso/oidc';
export const PENDING_TTL_MS = 10 * 60_000;

const pendingSchema = z.strictObject({
  v: z.literal(1),
  state: z.string(),
  nonce: z.string(),
  verifier: z.string(),
  next: z.string(),
  /** The provider and client the sign-in started with: a change of settings meanwhile voids it. */
  issuer: z.string(),
  clientId: z.string(),
  expiresAt: z.number(),
});
export type PendingLogin = Omit<z.infer<typeof pendingSchema>, 'v' | 'expiresAt'>;

export function sealPendingLogin(secrets: SecretBox, login: PendingLogin, now: number): string {
  return secrets.seal(JSON.stringify({ v: 1, ...login, expiresAt: now + PENDING_TTL_MS }));
}

/** The pending sign-in, or null when the cookie is missing, forged, foreign or out of date. */
export function openPendingLogin(
  secrets: SecretBox,
  cookie: string | undefined,
  now: number,
): PendingLogin | null {
  // A value that is not sealed would come back from open() as it is: only sealed ones count.
  if (!cookie || !cookie.startsWith('enc:v1:')) return null;
  let parsed: z.infer<typeof pendingSchema>;
  try {
    parsed = pendingSchema.parse(JSON.parse(secrets.open(cookie)));
  } catch {
    return null;
  }
  if (parsed.expiresAt < now) return null;
  const { v: _v, expiresAt: _expiresAt, ...login } = parsed;
  return login;
}

/** The longest `next` kept. */
const NEXT_MAX = 1000;

/**
 * `next` when it is a path on this Herald (at most 1000 characters), else '/': one '/' then not another '/' or a '\'
 * (browsers read `//host` and `/\host` as another site), no scheme, no control characters.
 */
export function localPath(next: string | undefined): string {
  // Longer would not fit the pending-login cookie (browsers keep at most 4 KiB).
  if (next === undefined || next === '' || next.length > NEXT_MAX) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return '/';
  // What a browser would make of it must still be this origin.
  const base = 'http://herald.invalid';
  try {
    if (new URL(next, base).origin !== base) return '/';
  } catch {
    return '/';
  }
  return next;
}
