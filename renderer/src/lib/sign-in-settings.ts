import type { SignInSettings, SignInSettingsPatch } from '@contract';

import { ApiError } from '../api/http-client';

/** A field of Settings → Sign-in as the API names it. */
export type SignInField = keyof SignInSettingsPatch;

/**
 * The environment variable that sets each field (docs/running-for-a-team.md). The console shows
 * a field the server lists in `fromEnvironment` read-only, with this name, since the variable
 * wins over anything saved here. Password sign-in and its break-glass account have none.
 */
export const SIGN_IN_ENV_VARIABLES: Readonly<Record<SignInField, string | null>> = {
  issuer: 'HERALD_OIDC_ISSUER',
  clientId: 'HERALD_OIDC_CLIENT_ID',
  clientSecret: 'HERALD_OIDC_CLIENT_SECRET',
  scopes: 'HERALD_OIDC_SCOPES',
  usernameClaim: 'HERALD_OIDC_USERNAME_CLAIM',
  groupsClaim: 'HERALD_OIDC_GROUPS_CLAIM',
  adminGroups: 'HERALD_OIDC_ADMIN_GROUPS',
  editorGroups: 'HERALD_OIDC_EDITOR_GROUPS',
  viewerGroups: 'HERALD_OIDC_VIEWER_GROUPS',
  autoCreate: 'HERALD_OIDC_AUTO_CREATE',
  buttonLabel: 'HERALD_OIDC_BUTTON_LABEL',
  passwordSignIn: null,
  breakGlassUsername: null,
};

/** The fields the card edits, every one but the secret (written only, never read back). */
export type SignInDraft = Omit<Required<SignInSettingsPatch>, 'clientSecret'>;

export function draftOf(s: SignInSettings): SignInDraft {
  return {
    issuer: s.issuer,
    clientId: s.clientId,
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
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The change Save sends: only the fields that differ from what was loaded, and never one the
 * environment sets (the server refuses those). `secret`: what was typed (undefined: keep it;
 * '' clears it).
 */
export function patchOf(
  loaded: SignInSettings,
  draft: SignInDraft,
  secret: string | undefined,
): SignInSettingsPatch {
  const before = draftOf(loaded);
  const fromEnv = new Set(loaded.fromEnvironment);
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before) as (keyof SignInDraft)[]) {
    if (fromEnv.has(key) || same(before[key], draft[key])) continue;
    const value = draft[key];
    patch[key] = typeof value === 'string' ? value.trim() : value;
  }
  if (secret !== undefined && !fromEnv.has('clientSecret')) patch.clientSecret = secret;
  return patch as SignInSettingsPatch;
}

/**
 * A refusal whose every part names a field of the form (`issuer: must be an http(s) address;
 * adminGroups.0: must not be empty`, the server's describeIssues), split so the card can show
 * each under its field; null for any other refusal, which the card shows under the form.
 */
export function fieldRefusals(msg: string): Partial<Record<SignInField, string>> | null {
  const found: Partial<Record<SignInField, string>> = {};
  for (const part of msg.split(/; (?=[a-zA-Z]+(?:\.\d+)*: )/)) {
    const m = /^([a-zA-Z]+)(?:\.\d+)*: (.+)$/s.exec(part);
    if (!m || !Object.hasOwn(SIGN_IN_ENV_VARIABLES, m[1]!)) return null;
    const field = m[1] as SignInField;
    found[field] = found[field] ? `${found[field]}; ${m[2]!}` : m[2]!;
  }
  return found;
}

/** The field refusals of a failed save: a 400 whose msg names fields of the form, else null. */
export function fieldRefusalsOf(err: unknown): Partial<Record<SignInField, string>> | null {
  return err instanceof ApiError && err.code === 400 ? fieldRefusals(err.msg) : null;
}

/** vue-i18n's t(), or anything that answers a key with its text. */
type Translate = (key: string, params?: Record<string, unknown>) => string;

/** The server's refusals of a sign-in field (features/sso/sign-in-config.ts, the contract). */
const REFUSALS: readonly (readonly [RegExp, string])[] = [
  [/^is set by (HERALD_\w+) in Herald's environment/, 'fromEnv'],
  [/^is required with an issuer$/, 'clientIdRequired'],
  [/^can be switched off only while OpenID Connect/, 'passwordOffNeedsSso'],
  [/^is required to switch password sign-in off/, 'breakGlassRequired'],
  [/^"(.*)" is not an enabled administrator account with a password$/, 'breakGlassInvalid'],
  [/^is not a URL like /, 'issuerNotUrl'],
  [/^must be an (?:http\(s\)|https:\/\/) address$/, 'issuerScheme'],
  [/^must be the issuer address only/, 'issuerOnly'],
  [/^uses plain http:\/\//, 'issuerHttp'],
  [/^must include openid$/, 'scopesOpenid'],
];

/**
 * A field's refusal as the card shows it under the field: a sentence in the person's language
 * where the console knows the refusal, else the server's words as sent.
 */
export function wordRefusal(detail: string, t: Translate): string {
  for (const [pattern, key] of REFUSALS) {
    const m = pattern.exec(detail);
    if (!m) continue;
    if (key === 'fromEnv') return t('signInSettings.fromEnv', { variable: m[1] });
    return t(`signInSettings.refusals.${key}`, { name: m[1] ?? '' });
  }
  return detail;
}
