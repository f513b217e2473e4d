import * as oidc from 'openid-client';

import type { Clock } from '../../lib/clock';
import type { PendingLogin } from './pending-login';
import type { EffectiveSignIn } from './sign-in-config';

/**
 * The OpenID Connect client (openid-client 6): discovery from the issuer, the authorization
 * code flow with PKCE (S256), `state` and `nonce`, and the provider's end-session address.
 */

/** How long one request to the provider may take (discovery, token, userinfo), in seconds. */
const REQUEST_TIMEOUT_S = 10;
/** A discovered provider is used this long before its metadata is read again. */
const DISCOVERY_TTL_MS = 60 * 60_000;

/** What the provider says about the person: the ID token's claims, with userinfo's over them. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
  idToken: string | undefined;
}

/** A sign-in the provider or its answer refused: the reason is for the log, never the page. */
export class OidcFailure extends Error {}

export class OidcClient {
  private cached: { key: string; at: number; config: Promise<oidc.Configuration> } | null = null;

  constructor(private readonly clock: Clock) {}

  /** The provider's configuration, discovered once per settings (and per hour). */
  private configuration(s: EffectiveSignIn): Promise<oidc.Configuration> {
    const key = JSON.stringify([s.issuer, s.clientId, s.clientSecret, s.allowHttp]);
    const now = this.clock.now();
    if (this.cached && this.cached.key === key && now - this.cached.at < DISCOVERY_TTL_MS) {
      return this.cached.config;
    }
    const config = oidc.discovery(
      new URL(s.issuer),
      s.clientId,
      s.clientSecret === '' ? undefined : s.clientSecret,
      // HTTP Basic, the method OpenID Connect registers a client with unless told otherwise
      // (Authelia enforces the registered one); a public client (no secret) has PKCE alone.
      s.clientSecret === '' ? oidc.None() : oidc.ClientSecretBasic(s.clientSecret),
      {
        timeout: REQUEST_TIMEOUT_S,
        // Plain http only when HERALD_OIDC_ALLOW_HTTP=1 said so (a home lab).
        execute: s.allowHttp ? [oidc.allowInsecureRequests] : [],
      },
    );
    this.cached = { key, at: now, config };
    // A failed discovery is not kept: the next sign-in tries again.
    config.catch(() => {
      if (this.cached?.config === config) this.cached = null;
    });
    return config;
  }

  /** Where to send the browser, and what the callback will need to check the answer. */
  async start(
    s: EffectiveSignIn,
    redirectUri: string,
    next: string,
  ): Promise<{ url: string; pending: PendingLogin }> {
    const config = await this.configuration(s);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: s.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return {
      url: url.href,
      pending: { state, nonce, verifier, next, issuer: s.issuer, clientId: s.clientId },
    };
  }

  /**
   * Checks the provider's redirect back (state, then the code exchanged with the PKCE verifier,
   * the ID token's signature, issuer, audience and nonce) and reads who signed in.
   */
  async finish(
    s: EffectiveSignIn,
    callbackUrl: URL,
    pending: PendingLogin,
  ): Promise<ProviderIdentity> {
    const config = await this.configuration(s);
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw new OidcFailure(describe(err));
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new OidcFailure('the provider answered without an ID token');
    let claims: Record<string, unknown> = { ...idClaims };
    // Many providers (Authelia, Keycloak's defaults, oidc-provider) give the profile, email
    // and groups claims only from userinfo; its `sub` must be the ID token's.
    if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
      try {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
        claims = { ...claims, ...info, iss: idClaims.iss, sub: idClaims.sub };
      } catch (err) {
        throw new OidcFailure(`userinfo: ${describe(err)}`);
      }
    }
    return { issuer: idClaims.iss, subject: idClaims.sub, claims, idToken: tokens.id_token };
  }

  /**
   * The provider's end_session_endpoint with `id_token_hint` and `post_logout_redirect_uri`,
   * or null when it has none (or cannot be reached: sign-out in Herald does not wait on it).
   */
  async endSessionUrl(
    s: EffectiveSignIn,
    idToken: string | null,
    postLogoutRedirectUri: string,
  ): Promise<string | null> {
    try {
      const config = await this.configuration(s);
      if (!config.serverMetadata().end_session_endpoint) return null;
      return oidc.buildEndSessionUrl(config, {
        ...(idToken ? { id_token_hint: idToken } : {}),
        post_logout_redirect_uri: postLogoutRedirectUri,
      }).href;
    } catch {
      return null;
    }
  }
}

/** The provider's error code and description, or the library's message: for the log. */
function describe(err: unknown): string {
  if (err instanceof oidc.ResponseBodyError || err instanceof oidc.AuthorizationResponseError) {
    return `${err.error}${err.error_description ? `: ${err.error_description}` : ''}`;
  }
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
