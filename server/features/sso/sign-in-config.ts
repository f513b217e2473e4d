import { createHash } from 'node:crypto';

import { Op, type Transaction } from 'sequelize';
import { z } from 'zod';

import type {
  SignInMethods,
  SignInSettings,
  SignInSettingsPatch,
} from '../../../contract/console/sign-in';
import {
  OIDC_VARIABLES,
  issuerProblem,
  scopesProblem,
  type OidcEnvField,
  type OidcEnvironment,
} from '../../config/oidc-config';
import type { SecretBox } from '../../crypto/secret-box';
import { Setting } from '../../db/models/setting';
import { User } from '../../db/models/user';
import type { WriteLock } from '../../db/writer';
import { badRequest } from '../../lib/errors';
import type { AuditState } from '../audit/audit-diff';
import type { GroupRoles } from './group-roles';

/**
 * Settings → Sign-in (issue 44): OpenID Connect's client, the group → role mapping, and whether
 * passwords still sign in. Stored as one row of the settings table (`sign-in`), its client
 * secret sealed with the server key, so `herald rotate-key` re-seals it with the other sealed
 * settings (key-rotation/sealed-values.ts). Each HERALD_OIDC_* variable that is set wins over
 * its field.
 *
 * Read from the database at each use rather than cached: sign-ins are rare, and on PostgreSQL
 * another process may have just saved a change.
 */

/** The settings row. */
export const SIGN_IN_SETTING = 'sign-in';
export const DEFAULT_SCOPES = 'openid profile email';
export const DEFAULT_GROUPS_CLAIM = 'groups';
/** Where the provider sends the browser back to, under the public base URL. */
export const OIDC_CALLBACK_PATH = '/api/console/sso/oidc/callback';
export const OIDC_LOGIN_PATH = '/api/console/sso/oidc/login';

const storedSchema = z.object({
  issuer: z.string().default(''),
  clientId: z.string().default(''),
  /** Sealed (`enc:v1:…`); '' when none. */
  clientSecret: z.string().default(''),
  scopes: z.string().default(DEFAULT_SCOPES),
  usernameClaim: z.string().default(''),
  groupsClaim: z.string().default(DEFAULT_GROUPS_CLAIM),
  adminGroups: z.array(z.string()).default([]),
  editorGroups: z.array(z.string()).default([]),
  viewerGroups: z.array(z.string()).default([]),
  autoCreate: z.boolean().default(true),
  buttonLabel: z.string().default(''),
  passwordSignIn: z.boolean().default(true),
  breakGlassUsername: z.string().default(''),
});
type StoredSignIn = z.infer<typeof storedSchema>;

/** The settings in force: the environment's values over the stored ones, the secret opened. */
export interface EffectiveSignIn extends StoredSignIn {
  allowHttp: boolean;
  /** The fields the environment sets (SignInSettings' names). */
  fromEnvironment: OidcEnvField[];
}

/** An OpenID Connect client is configured: the provider's address and the client's id. */
export const oidcConfigured = (s: EffectiveSignIn) => s.issuer !== '' && s.clientId !== '';

export interface SignInConfigDeps {
  writeLock: WriteLock;
  secrets: SecretBox;
  /** HERALD_OIDC_* as read at start (config/oidc-config.ts). */
  env: OidcEnvironment;
  /** The public base URL (the `publicBaseUrl` setting, else the listen address), no trailing '/'. */
  publicBase: () => string;
  /**
   * The trusted reverse-proxy header's settings (HERALD_AUTH_PROXY_*), for Settings → Sign-in
   * and the sign-in page; the proxy header's wiring provides it, unset means no proxy.
   */
  proxy?: () => SignInSettings['proxy'];
}

/** A secret's fingerprint for the audit's comparison in memory; null when unset. */
const fingerprint = (value: string) =>
  value === '' ? null : createHash('sha256').update(value).digest('base64');

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export class SignInConfig {
  constructor(private readonly deps: SignInConfigDeps) {}

  private async stored(): Promise<StoredSignIn> {
    const row = await Setting.findByPk(SIGN_IN_SETTING);
    const parsed = storedSchema.safeParse(row?.value ?? {});
    // A value another version wrote that no longer fits: the defaults (OIDC off, passwords on)
    // rather than a Herald nobody can sign in to.
    return parsed.success ? parsed.data : storedSchema.parse({});
  }

  private effectiveOf(stored: StoredSignIn): EffectiveSignIn {
    const { values, allowHttp } = this.deps.env;
    const merged: StoredSignIn = {
      ...stored,
      clientSecret: stored.clientSecret ? this.deps.secrets.open(stored.clientSecret) : '',
    };
    const fromEnvironment: OidcEnvField[] = [];
    for (const field of Object.keys(OIDC_VARIABLES) as OidcEnvField[]) {
      const value = values[field];
      if (value === undefined) continue;
      (merged as Record<string, unknown>)[field] = value;
      fromEnvironment.push(field);
    }
    return { ...merged, allowHttp, fromEnvironment };
  }

  /** The settings in force now. */
  async effective(): Promise<EffectiveSignIn> {
    return this.effectiveOf(await this.stored());
  }

  /**
   * The group → role mapping in force (the environment over Settings → Sign-in): the one place
   * both OpenID Connect and the trusted proxy header read it from.
   */
  async groupRoles(): Promise<GroupRoles> {
    const s = await this.effective();
    return { admin: s.adminGroups, editor: s.editorGroups, viewer: s.viewerGroups };
  }

  redirectUri(): string {
    return `${this.deps.publicBase()}${OIDC_CALLBACK_PATH}`;
  }

  /** Where the provider sends the browser after ending its session (post_logout_redirect_uri). */
  signInPageUrl(): string {
    return `${this.deps.publicBase()}/sign-in`;
  }

  /** What the sign-in page shows before anyone is signed in. */
  async methods(): Promise<SignInMethods> {
    const s = await this.effective();
    const proxy = this.deps.proxy?.() ?? null;
    return {
      password: s.passwordSignIn,
      oidc: oidcConfigured(s) ? { buttonLabel: s.buttonLabel, loginPath: OIDC_LOGIN_PATH } : null,
      proxyLogoutUrl: proxy?.logoutUrl ?? null,
    };
  }

  /**
   * Whether this username may sign in with a password: everyone while password sign-in is on,
   * else only the break-glass account (which must still be an administrator: checked by the
   * caller once the password proved who it is).
   */
  async passwordAllowed(username: string): Promise<{ allowed: boolean; everyone: boolean }> {
    const s = await this.effective();
    const breakGlass = s.breakGlassUsername !== '' && username === s.breakGlassUsername;
    return { allowed: s.passwordSignIn || breakGlass, everyone: s.passwordSignIn };
  }

  /** Settings → Sign-in as the console shows it. */
  async view(): Promise<SignInSettings> {
    return this.viewOf(await this.effective());
  }

  private viewOf(s: EffectiveSignIn): SignInSettings {
    return {
      issuer: s.issuer,
      clientId: s.clientId,
      clientSecretSet: s.clientSecret !== '',
      scopes: s.scopes,
      usernameClaim: s.usernameClaim,
      groupsClaim: s.groupsClaim,
      adminGroups: [...s.adminGroups],
      editorGroups: [...s.editorGroups],
      viewerGroups: [...s.viewerGroups],
      autoCreate: s.autoCreate,
      buttonLabel: s.buttonLabel,
      passwordSignIn: s.passwordSignIn,
      breakGlassUsername: s.breakGlassUsername,
      allowHttp: s.allowHttp,
      fromEnvironment: [...s.fromEnvironment],
      redirectUri: this.redirectUri(),
      proxy: this.deps.proxy?.() ?? null,
    };
  }

  /** What the audit compares: every field, and the client secret as a fingerprint only. */
  private auditStateOf(s: EffectiveSignIn): AuditState {
    const { clientSecret, allowHttp: _allowHttp, fromEnvironment: _env, ...fields } = s;
    return { name: 'sign-in', fields, secrets: { clientSecret: fingerprint(clientSecret) } };
  }

  /**
   * Saves a change. Refused (400, naming the field) when it changes a value the environment
   * sets, leaves an issuer without a client id, or switches password sign-in off without an
   * enabled administrator with a password as the break-glass account.
   */
  async update(
    patch: SignInSettingsPatch,
  ): Promise<{ settings: SignInSettings; before: AuditState; after: AuditState }> {
    const env = this.deps.env.values;
    for (const field of Object.keys(patch) as Array<keyof SignInSettingsPatch>) {
      if (!(field in OIDC_VARIABLES)) continue;
      const envValue = env[field as OidcEnvField];
      if (envValue === undefined) continue;
      const value = patch[field];
      // Sending back the value in force (a form saved whole) is no change; the secret is
      // never shown, so any secret sent is one.
      if (field === 'clientSecret' || !sameValue(value, envValue)) {
        throw badRequest(
          `${field}: is set by ${OIDC_VARIABLES[field as OidcEnvField]} in Herald's environment; change it there`,
        );
      }
    }
    return this.deps.writeLock.run(async ({ transaction }) => {
      const row = await Setting.findByPk(SIGN_IN_SETTING, { transaction });
      const parsed = storedSchema.safeParse(row?.value ?? {});
      const stored = parsed.success ? parsed.data : storedSchema.parse({});
      const before = this.effectiveOf(stored);
      const { clientSecret, ...rest } = patch;
      const next: StoredSignIn = storedSchema.parse({ ...stored, ...rest });
      if (clientSecret !== undefined) {
        next.clientSecret = clientSecret === '' ? '' : this.deps.secrets.seal(clientSecret);
      }
      const after = this.effectiveOf(next);
      await this.check(after, transaction);
      await Setting.upsert({ key: SIGN_IN_SETTING, value: next }, { transaction });
      return {
        settings: this.viewOf(after),
        before: this.auditStateOf(before),
        after: this.auditStateOf(after),
      };
    });
  }

  private async check(s: EffectiveSignIn, transaction: Transaction | undefined): Promise<void> {
    if (s.issuer !== '') {
      const problem = issuerProblem(s.issuer, s.allowHttp);
      if (problem) throw badRequest(`issuer: ${problem}`);
      if (s.clientId === '') throw badRequest('clientId: is required with an issuer');
    }
    const scopes = scopesProblem(s.scopes);
    if (scopes) throw badRequest(`scopes: ${scopes}`);
    if (!s.passwordSignIn) {
      // Without a provider or a proxy header, only the break-glass account could sign in.
      if (!oidcConfigured(s) && !this.deps.proxy?.()) {
        throw badRequest(
          'passwordSignIn: can be switched off only while OpenID Connect (or a trusted proxy header) signs people in',
        );
      }
      const name = s.breakGlassUsername;
      if (name === '') {
        throw badRequest(
          'breakGlassUsername: is required to switch password sign-in off: name the administrator account that keeps it',
        );
      }
      const admin = await User.findOne({
        where: { username: name, role: 'admin', disabled: false, passwordHash: { [Op.ne]: '' } },
        transaction,
      });
      if (!admin) {
        throw badRequest(
          `breakGlassUsername: "${name}" is not an enabled administrator account with a password`,
        );
      }
    }
  }
}

/** The sign-in settings resolver: one per Herald, shared by OpenID Connect and the proxy header. */
export function createSignInConfig(deps: SignInConfigDeps): SignInConfig {
  return new SignInConfig(deps);
}
