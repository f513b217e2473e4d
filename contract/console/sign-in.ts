import { z } from 'zod';

import { CONSOLE_BASE, named } from '../common';
import { route } from '../route';

/*
 * Signing in the team's way (issue 44): OpenID Connect and a trusted reverse-proxy header.
 * One home for the shapes the server answers and the console sends; the server's resolver
 * (server/features/sso/) merges the stored settings with the HERALD_OIDC_* environment, which wins.
 */

/** A list of provider group names (a groups claim's values, or a proxy's groups header's). */
export const groupListSchema = z
  .array(z.string().trim().min(1, 'must not be empty').max(200))
  .max(100);

/** What the sign-in page needs to know before anyone is signed in. */
export const signInMethodsSchema = named(
  'SignInMethods',
  z.strictObject({
    /**
     * Whether the page shows the username and password form. False when an administrator
     * switched password sign-in off: only the break-glass account may still use it, from
     * `/sign-in?break-glass`.
     */
    password: z.boolean(),
    /** The provider's button, or null when OpenID Connect is not configured. */
    oidc: z.strictObject({ buttonLabel: z.string(), loginPath: z.string() }).nullable(),
    /** Where sign-out sends the browser when a reverse proxy signs people in, else null. */
    proxyLogoutUrl: z.string().nullable(),
  }),
);
export type SignInMethods = z.infer<typeof signInMethodsSchema>;

/** The settings an administrator edits under Settings → Sign-in (every field optional in a change). */
export const signInSettingsFields = {
  /** The provider's issuer URL (discovery: `{issuer}/.well-known/openid-configuration`); '' = off. */
  issuer: z.union([z.literal(''), z.url({ error: 'must be an http(s) address' }).max(500)]),
  clientId: z.string().trim().max(300),
  /** Written only: omitted keeps the stored secret, '' clears it. */
  clientSecret: z.string().max(1000),
  /** Space-separated; must include `openid`. */
  scopes: z.string().trim().min(1).max(500),
  /** '' = `preferred_username`, then `email`. */
  usernameClaim: z.string().trim().max(100),
  groupsClaim: z.string().trim().min(1).max(100),
  adminGroups: groupListSchema,
  editorGroups: groupListSchema,
  viewerGroups: groupListSchema,
  autoCreate: z.boolean(),
  /** '' = "Sign in with SSO" in the reader's language. */
  buttonLabel: z.string().trim().max(60),
  /** Off: only `breakGlassUsername` may sign in with a password. */
  passwordSignIn: z.boolean(),
  /** The one administrator account that keeps password sign-in when it is switched off. */
  breakGlassUsername: z.string().trim().max(100),
};

/** Settings → Sign-in as the console shows it: the effective values, and where each came from. */
export const signInSettingsSchema = named(
  'SignInSettings',
  z.strictObject({
    issuer: z.string(),
    clientId: z.string(),
    /** Whether a client secret is set (it is never shown). */
    clientSecretSet: z.boolean(),
    scopes: z.string(),
    usernameClaim: z.string(),
    groupsClaim: z.string(),
    adminGroups: z.array(z.string()),
    editorGroups: z.array(z.string()),
    viewerGroups: z.array(z.string()),
    autoCreate: z.boolean(),
    buttonLabel: z.string(),
    passwordSignIn: z.boolean(),
    breakGlassUsername: z.string(),
    /** HERALD_OIDC_ALLOW_HTTP: the provider may be on plain http:// (home labs). Environment only. */
    allowHttp: z.boolean(),
    /**
     * The fields whose value comes from the environment (the HERALD_OIDC_* variable wins); the
     * console shows them read-only with the variable's name.
     */
    fromEnvironment: z.array(z.string()),
    /** The redirect URI to register at the provider: `{public base}/api/console/sso/oidc/callback`. */
    redirectUri: z.string(),
    /** The trusted reverse-proxy header (HERALD_AUTH_PROXY_*; environment only), or null when unset. */
    proxy: z
      .strictObject({
        header: z.string(),
        groupsHeader: z.string().nullable(),
        logoutUrl: z.string().nullable(),
        autoCreate: z.boolean(),
      })
      .nullable(),
  }),
);
export type SignInSettings = z.infer<typeof signInSettingsSchema>;

export const signInSettingsBody = z.strictObject(signInSettingsFields).partial();
export type SignInSettingsPatch = z.infer<typeof signInSettingsBody>;

export const signInRoutes = {
  methods: route({
    method: 'get',
    path: `${CONSOLE_BASE}/sign-in/methods`,
    summary:
      'How people sign in here: password form, the OpenID Connect button, the proxy sign-out',
    public: true,
    response: signInMethodsSchema,
  }),
  settings: route({
    method: 'get',
    path: `${CONSOLE_BASE}/settings/sign-in`,
    summary:
      'Settings → Sign-in (admin): OpenID Connect, password sign-in, and which values the environment sets',
    response: signInSettingsSchema,
  }),
  updateSettings: route({
    method: 'put',
    path: `${CONSOLE_BASE}/settings/sign-in`,
    summary:
      'Change Settings → Sign-in (admin); 400 for a field the environment sets, or password sign-in off without a break-glass administrator',
    body: signInSettingsBody,
    response: signInSettingsSchema,
  }),
  oidcLogin: route({
    method: 'get',
    path: `${CONSOLE_BASE}/sso/oidc/login`,
    summary:
      'Start an OpenID Connect sign-in: redirects to the provider; `next` is a local path to land on',
    public: true,
    query: z.object({ next: z.string().max(2000).optional() }),
    answers: 'redirect',
  }),
  oidcCallback: route({
    method: 'get',
    path: `${CONSOLE_BASE}/sso/oidc/callback`,
    summary:
      "The provider's redirect back: checks state, nonce and PKCE, signs in, and redirects to `next` (or to a refusal page)",
    public: true,
    query: z.object({}).catchall(z.string()),
    answers: 'redirect',
  }),
};
