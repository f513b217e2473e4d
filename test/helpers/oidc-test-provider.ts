import { generateKeyPairSync } from 'node:crypto';
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

import Provider, { type Configuration } from 'oidc-provider';

/**
 * A real OpenID Connect provider (oidc-provider 8) on loopback for the SSO tests: discovery,
 * signed ID tokens, authorization code with PKCE required, userinfo, end_session_endpoint. Its
 * development sign-in form takes any login name as the account id (the `sub`); the claims each
 * id gets come from `people`, which a test may change between sign-ins (a new group).
 */

export interface TestPerson {
  preferred_username?: string;
  email?: string;
  groups?: string[];
}

export interface TestClient {
  clientId: string;
  /** Omitted: a public client (PKCE only). */
  clientSecret?: string;
  /** The Herald's base URL: its callback and sign-in page are registered. */
  heraldUrl: string;
}

export interface OidcTestProvider {
  issuer: string;
  /** Account id (`sub`) → the claims the provider gives. */
  people: Map<string, TestPerson>;
  /** Registers the clients (each Herald that signs in here); call once, after they started. */
  register(clients: TestClient[]): void;
  close(): Promise<void>;
}

/** Listens first (the issuer's address must be known before any Herald starts), then serves. */
export async function startOidcProvider(): Promise<OidcTestProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server: Server = createServer((req, res) => {
    if (handler) return handler(req, res);
    res.statusCode = 503;
    res.end('no clients registered yet');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people = new Map<string, TestPerson>();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = {
    ...privateKey.export({ format: 'jwk' }),
    kid: 'test-key',
    use: 'sig',
    alg: 'RS256',
  };

  return {
    issuer,
    people,
    register(clients) {
      const configuration: Configuration = {
        clients: clients.map((c) => ({
          client_id: c.clientId,
          ...(c.clientSecret
            ? { client_secret: c.clientSecret, token_endpoint_auth_method: 'client_secret_basic' }
            : { token_endpoint_auth_method: 'none' }),
          redirect_uris: [`${c.heraldUrl}/api/console/sso/oidc/callback`],
          post_logout_redirect_uris: [`${c.heraldUrl}/sign-in`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        })),
        jwks: { keys: [jwk as never] },
        cookies: { keys: ['oidc-test-provider-cookie-key'] },
        // As Authentik and Pocket-ID do: the groups come with the profile scope's claims.
        claims: {
          openid: ['sub'],
          profile: ['preferred_username', 'groups'],
          email: ['email'],
        },
        async findAccount(_ctx, id) {
          return {
            accountId: id,
            async claims() {
              return { sub: id, ...(people.get(id) ?? {}) };
            },
          };
        },
        // First-party client: the grant is given without a consent screen.
        async loadExistingGrant(ctx) {
          const grant = new ctx.oidc.provider.Grant({
            clientId: ctx.oidc.client!.clientId,
            accountId: ctx.oidc.session!.accountId,
          });
          grant.addOIDCScope('openid profile email');
          await grant.save();
          return grant;
        },
        pkce: { required: () => true, methods: ['S256'] },
        ttl: {
          AccessToken: 600,
          AuthorizationCode: 60,
          Grant: 600,
          IdToken: 600,
          Interaction: 600,
          Session: 600,
        },
        features: {
          devInteractions: { enabled: true },
          rpInitiatedLogout: { enabled: true },
        },
      };
      const provider = new Provider(issuer, configuration);
      // Quiet: the tests read what reaches Herald, not the provider's console.
      provider.on('server_error', () => undefined);
      handler = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A browser's cookies for one site, by name (paths ignored: each flow is sequential). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Takes the Set-Cookie lines of an answer. */
  take(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some(
        (a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a),
      );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** A browser's top-level navigation from another site (the provider's redirect back). */
export const CROSS_SITE_NAVIGATION = {
  'Sec-Fetch-Site': 'cross-site',
  'Sec-Fetch-Mode': 'navigate',
  'Sec-Fetch-Dest': 'document',
};

/**
 * One GET or form POST without following redirects, the jar's cookies sent and kept. Over
 * node:http rather than fetch, which would replace a Sec-Fetch-Mode header with its own `cors`.
 */
export function step(
  jar: CookieJar,
  url: string,
  form?: Record<string, string>,
  /** Headers a browser adds (Fetch Metadata). */
  extra: Record<string, string> = {},
): Promise<{ status: number; location: string | null; body: string }> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: form ? 'POST' : 'GET',
        headers: {
          ...(jar.header() ? { Cookie: jar.header() } : {}),
          ...(body !== undefined
            ? {
                'Content-Type': 'application/x-www-form-urlencoded',
                'Content-Length': Buffer.byteLength(body),
              }
            : {}),
          ...extra,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          jar.take(res.headers['set-cookie'] ?? []);
          const location = res.headers.location;
          resolve({
            status: res.statusCode ?? 0,
            location: location === undefined ? null : new URL(location, url).href,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
