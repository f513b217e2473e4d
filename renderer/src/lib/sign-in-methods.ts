/**
 * The sign-in page's decisions that do not need the page: where a person lands after signing
 * in, the provider button's address, and what a refused single sign-on (`?error=`) means.
 */

/** A same-app path to land on, never an absolute or protocol-relative URL someone put in a link. */
export function localPath(value: unknown): string {
  return typeof value === 'string' &&
    value.startsWith('/') &&
    !value.startsWith('//') &&
    !value.startsWith('/\\')
    ? value
    : '/';
}

/** The provider button's address: the server's login path with the page to land on as `next`. */
export function ssoLoginHref(loginPath: string, next: string): string {
  const separator = loginPath.includes('?') ? '&' : '?';
  return `${loginPath}${separator}next=${encodeURIComponent(next)}`;
}

/** The refusals the OpenID Connect callback sends to `/sign-in?error=` (server/features/sso). */
export const SSO_ERRORS = [
  'sso-no-account',
  'sso-disabled-account',
  'sso-failed',
  'sso-state',
] as const;
export type SsoError = (typeof SSO_ERRORS)[number];

/**
 * The refusal named by `?error=`, or null without one. A code this console does not know (a
 * newer server) reads as the general failure rather than as nothing.
 */
export function ssoErrorOf(value: unknown): SsoError | null {
  if (typeof value !== 'string' || value === '') return null;
  return (SSO_ERRORS as readonly string[]).includes(value) ? (value as SsoError) : 'sso-failed';
}

/**
 * Whether sign-out may send the browser to `url` (the provider's end-session endpoint or the
 * proxy's logout): only an http(s) address, never `javascript:` or another scheme.
 */
export function isNavigableUrl(url: string): boolean {
  try {
    const parsed = new URL(url, globalThis.location?.href ?? 'http://localhost/');
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}
