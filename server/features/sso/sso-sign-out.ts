import type { SessionVia } from '../auth/auth-service';
import type { OidcClient } from './oidc-client';
import { oidcConfigured, type SignInConfig } from './sign-in-config';

/**
 * Where sign-out sends the browser after Herald's session ended, so the provider's ends too:
 * for a session opened with OpenID Connect, the provider's end_session_endpoint (with the
 * session's ID token as `id_token_hint`, and the sign-in page as `post_logout_redirect_uri`,
 * which must be registered at the provider); null for any other session, or a provider that
 * offers no end_session_endpoint.
 */
export function ssoSignOut(config: SignInConfig, oidc: OidcClient) {
  return async (via: SessionVia): Promise<string | null> => {
    if (via.method !== 'oidc') return null;
    const s = await config.effective();
    if (!oidcConfigured(s)) return null;
    return oidc.endSessionUrl(s, via.idToken ?? null, config.signInPageUrl());
  };
}
