import { groupListSchema } from '../../contract/console/sign-in';
import { readSecretVariable } from './secret-variable';

/*
 * The HERALD_OIDC_* variables (issue 44, docs/running-for-a-team.md "OpenID Connect"). Each one
 * set wins over the same field of Settings → Sign-in, which the console then shows read-only.
 * A bad value stops the start here, naming its variable, before the data folder is touched.
 */

/** The Settings → Sign-in fields a variable can set, and the variable that sets each. */
export const OIDC_VARIABLES = {
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
} as const;

export type OidcEnvField = keyof typeof OIDC_VARIABLES;

/** The values the environment sets; a field that is absent comes from Settings → Sign-in. */
export interface OidcEnvValues {
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  scopes?: string;
  usernameClaim?: string;
  groupsClaim?: string;
  adminGroups?: string[];
  editorGroups?: string[];
  viewerGroups?: string[];
  autoCreate?: boolean;
  buttonLabel?: string;
}

export interface OidcEnvironment {
  values: OidcEnvValues;
  /** HERALD_OIDC_ALLOW_HTTP=1: the provider may be on plain http:// (a home lab). */
  allowHttp: boolean;
}

export const NO_OIDC_ENVIRONMENT: OidcEnvironment = { values: {}, allowHttp: false };

const ON = new Set(['1', 'true', 'on', 'yes']);
const OFF = new Set(['0', 'false', 'off', 'no']);

function parseFlag(value: string, name: string): boolean {
  const flag = value.trim().toLowerCase();
  if (ON.has(flag)) return true;
  if (OFF.has(flag)) return false;
  throw new Error(`${name} must be 1 (true) or 0 (false), not "${value}"`);
}

/**
 * Why an issuer address cannot be used, or null when it can: an absolute http(s) URL without
 * query, fragment or credentials, and https unless plain http is allowed. Shared by the
 * variable and Settings → Sign-in, so both refuse the same addresses.
 */
export function issuerProblem(value: string, allowHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL like https://id.example.com/application/o/herald/';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// address';
  if (url.search || url.hash || url.username || url.password) {
    return 'must be the issuer address only (no query, fragment or credentials)';
  }
  if (url.protocol === 'http:' && !allowHttp) {
    return 'uses plain http://; use https, or set HERALD_OIDC_ALLOW_HTTP=1 for a provider in a home lab';
  }
  return null;
}

/** Why a scope list cannot be used, or null: OpenID Connect needs `openid` among them. */
export function scopesProblem(value: string): string | null {
  return value.split(/\s+/).includes('openid') ? null : 'must include openid';
}

function text(env: NodeJS.ProcessEnv, name: string, max: number): string | undefined {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return undefined;
  if (value.length > max) throw new Error(`${name} must be at most ${max} characters`);
  return value;
}

function groups(env: NodeJS.ProcessEnv, name: string): string[] | undefined {
  if (env[name] === undefined || env[name].trim() === '') return undefined;
  // As features/sso/group-roles.ts's parseGroupList does (config/ sits below features/).
  const names = env[name]
    .split(',')
    .map((group) => group.trim())
    .filter((group) => group !== '');
  const list = groupListSchema.safeParse(names);
  if (!list.success) {
    throw new Error(
      `${name} must be a comma-separated list of at most 100 group names of at most 200 characters each`,
    );
  }
  return list.data;
}

/** The HERALD_OIDC_* variables, checked; throws naming the variable that is wrong. */
export function readOidcEnvironment(env: NodeJS.ProcessEnv): OidcEnvironment {
  const allowHttp =
    env.HERALD_OIDC_ALLOW_HTTP !== undefined && env.HERALD_OIDC_ALLOW_HTTP.trim() !== ''
      ? parseFlag(env.HERALD_OIDC_ALLOW_HTTP, 'HERALD_OIDC_ALLOW_HTTP')
      : false;
  const secret = readSecretVariable(env, 'HERALD_OIDC_CLIENT_SECRET');
  const values: OidcEnvValues = {
    issuer: text(env, OIDC_VARIABLES.issuer, 500),
    clientId: text(env, OIDC_VARIABLES.clientId, 300),
    clientSecret: secret.value,
    scopes: text(env, OIDC_VARIABLES.scopes, 500),
    usernameClaim: text(env, OIDC_VARIABLES.usernameClaim, 100),
    groupsClaim: text(env, OIDC_VARIABLES.groupsClaim, 100),
    adminGroups: groups(env, OIDC_VARIABLES.adminGroups),
    editorGroups: groups(env, OIDC_VARIABLES.editorGroups),
    viewerGroups: groups(env, OIDC_VARIABLES.viewerGroups),
    buttonLabel: text(env, OIDC_VARIABLES.buttonLabel, 60),
  };
  const autoCreate = env[OIDC_VARIABLES.autoCreate];
  if (autoCreate !== undefined && autoCreate.trim() !== '') {
    values.autoCreate = parseFlag(autoCreate, OIDC_VARIABLES.autoCreate);
  }
  if (values.issuer !== undefined) {
    const problem = issuerProblem(values.issuer, allowHttp);
    if (problem) throw new Error(`${OIDC_VARIABLES.issuer} ${problem}`);
  }
  if (values.scopes !== undefined) {
    const problem = scopesProblem(values.scopes);
    if (problem)
      throw new Error(`${OIDC_VARIABLES.scopes} ${problem} (e.g. "openid profile email")`);
  }
  if (secret.value !== undefined && secret.value.length > 1000) {
    throw new Error(`${secret.name} must be at most 1000 characters`);
  }
  // The provider's address and this client's name belong together: half of them in the
  // environment and half in the console would be a login nobody can read off one place.
  if (values.clientId !== undefined && values.issuer === undefined) {
    throw new Error(`${OIDC_VARIABLES.clientId} is set without ${OIDC_VARIABLES.issuer}`);
  }
  if (values.issuer !== undefined && values.clientId === undefined) {
    throw new Error(`${OIDC_VARIABLES.issuer} is set without ${OIDC_VARIABLES.clientId}`);
  }
  if (values.clientSecret !== undefined && values.clientId === undefined) {
    throw new Error(`${secret.name} is set without ${OIDC_VARIABLES.clientId}`);
  }
  for (const field of Object.keys(values) as OidcEnvField[]) {
    if (values[field] === undefined) delete values[field];
  }
  return { values, allowHttp };
}
