import { join } from 'node:path';

import { deliveryThreadMode, type DeliveryThreadMode } from './delivery-thread-mode';
import { writeWorkerMode, type WriteWorkerMode } from './write-worker-mode';
import { appRoot } from '../lib/app-root';
import { systemClock, type Clock } from '../lib/clock';
import { parseServerKeySource, type ServerKeySource } from './server-key-source';
import { parseMetricsSettings, type MetricsSettings } from './metrics-settings';
import { parseDatabaseUrl } from './database-url';
import { readSecretVariable } from './secret-variable';
import { parseAllowedHosts, parseCorsOrigins, parseMaxConnections } from './http-guards';
import { readOidcEnvironment, type OidcEnvironment } from './oidc-config';
import { parseTrustProxy } from './trust-proxy';
import { parseAuthProxyConfig, type AuthProxyConfig } from './auth-proxy-config';
import { parseWebPushEndpoints } from './web-push-endpoints';
import { newPasswordSchema } from '../../contract/console/users';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8765;

export interface StartServerOptions {
  /**
   * Where the HERALD_* variables are read from; default process.env. Tests pass their own, so
   * a test's variables never reach another Herald starting in the same process meanwhile.
   */
  env?: NodeJS.ProcessEnv;
  host?: string;
  /** 0 picks a free port (tests); users get a stable port. */
  port?: number;
  dataDir: string;
  /** One-time secret for GET /api/console/desktop-login (the desktop window's sign-in). */
  desktopSecret?: string;
  /** Built console; defaults to renderer/dist beside the code. */
  rendererDir?: string;
  clock?: Clock;
  /** false leaves the dispatcher idle; tests then drive it with `dispatcher.runDue()`. */
  startDispatcher?: boolean;
  /** Jitter source for retry delays (tests make it deterministic). */
  random?: () => number;
  /** Extra Host names to answer to; default HERALD_ALLOWED_HOSTS. */
  allowedHosts?: string[];
  /** Origins whose pages may call the send APIs; default HERALD_CORS_ORIGINS. */
  corsOrigins?: string[];
  /** Open connections at most; default HERALD_MAX_CONNECTIONS, else 1024. */
  maxConnections?: number;
  /** Tests shorten these to see them act; users get HTTP_TIMEOUTS. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** Proxies to trust, as HERALD_TRUST_PROXY (which it overrides). */
  trustProxy?: string;
  /** The server key, as HERALD_SECRET_KEY (which it overrides, with HERALD_SECRET_KEY_FILE). */
  secretKey?: string;
  /** A file holding the server key, as HERALD_SECRET_KEY_FILE (overrides both variables). */
  secretKeyFile?: string;
  /** `/metrics`, as HERALD_METRICS and HERALD_METRICS_TOKEN (which it overrides). */
  metrics?: { enabled: boolean; token?: string };
  /** A PostgreSQL URL, as HERALD_DATABASE_URL (which it overrides); unset: SQLite in dataDir. */
  databaseUrl?: string;
  /**
   * Replace a data-folder lock left by another pid (data-dir/lock.ts `takeOver`): the desktop
   * app, whose own single-instance lock already keeps a second copy away.
   */
  takeOverDataDirLock?: boolean;
  /**
   * Scheduled backups on until an administrator sets them: daily into the data folder's
   * backups/ (the desktop app).
   */
  backupsByDefault?: boolean;
  /** Extra push service origins, as HERALD_WEB_PUSH_ENDPOINTS (which it overrides). */
  webPushEndpoints?: string;
}

export interface HttpTimeouts {
  /** To receive a request's headers: a client that trickles them is cut (slowloris). */
  headersMs: number;
  /** To receive a whole request; answers may take longer (event streams, V1's wait). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
  /** How often Node checks the two above. */
  checkEveryMs: number;
}

export const HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 30_000,
  requestMs: 60_000,
  keepAliveMs: 5_000,
  checkEveryMs: 10_000,
};

export const defaultRendererDir = (): string => join(appRoot(), 'renderer', 'dist');

/** Everything Herald is built from, read and checked before anything is opened. */
export interface HeraldConfig {
  dataDir: string;
  host: string;
  port: number;
  clock: Clock;
  /** Jitter source for retry delays. */
  random?: () => number;
  desktopSecret: string | null;
  rendererDir: string;
  /** The address Herald listens on, HERALD_ALLOWED_HOSTS and HERALD_CORS_ORIGINS. */
  guards: { listenHost: string; allowedHosts: string[]; corsOrigins: string[] };
  maxConnections: number;
  timeouts: HttpTimeouts;
  trustProxy: string[] | false;
  /** Whether deliveries start at once (false: recovered only, tests drive them). */
  startDispatcher: boolean;
  /** HERALD_ADMIN_USER and HERALD_ADMIN_PASSWORD(_FILE): an administrator created at start. */
  admin: { user?: string; password?: string };
  /** HERALD_SECRET_KEY, HERALD_SECRET_KEY_FILE, or the data folder's secret.key. */
  secretKey: ServerKeySource;
  /** HERALD_METRICS and HERALD_METRICS_TOKEN(_FILE). */
  metrics: MetricsSettings;
  /** HERALD_DATABASE_URL(_FILE): PostgreSQL when set, else the SQLite file in the data folder. */
  databaseUrl: string | null;
  /** HERALD_WRITE_WORKER: when SQLite's hot-path writes run on a thread of their own. */
  writeWorker: WriteWorkerMode;
  /** HERALD_DELIVERY_THREAD: when SQLite's deliveries run on a thread of their own. */
  deliveryThread: DeliveryThreadMode;
  /** Scheduled backups' default: on (the desktop app) or off. */
  backupsByDefault: boolean;
  /** HERALD_WEB_PUSH_ENDPOINTS: push service origins allowed besides the known ones. */
  webPushEndpoints: string[];
  /** HERALD_AUTH_PROXY_*: the trusted proxy's header that signs people in, or null (issue 44). */
  authProxy: AuthProxyConfig | null;
  /** HERALD_OIDC_*: the OpenID Connect settings the environment sets (they win over the console's). */
  oidc: OidcEnvironment;
}

/**
 * The options merged over the HERALD_* variables. A bad value throws here, naming the option or
 * variable, so a wrong setting stops the start before the data folder is touched.
 */
export function readHeraldConfig(
  opts: StartServerOptions,
  env: NodeJS.ProcessEnv = opts.env ?? process.env,
): HeraldConfig {
  const host = opts.host ?? DEFAULT_HOST;
  const trustProxy = parseTrustProxy(opts.trustProxy ?? env.HERALD_TRUST_PROXY);
  return {
    dataDir: opts.dataDir,
    host,
    port: opts.port ?? DEFAULT_PORT,
    clock: opts.clock ?? systemClock,
    random: opts.random,
    desktopSecret: opts.desktopSecret ?? null,
    rendererDir: opts.rendererDir ?? defaultRendererDir(),
    guards: {
      listenHost: host,
      allowedHosts: opts.allowedHosts
        ? parseAllowedHosts(opts.allowedHosts.join(','), '--allowed-hosts')
        : parseAllowedHosts(env.HERALD_ALLOWED_HOSTS),
      corsOrigins: opts.corsOrigins
        ? parseCorsOrigins(opts.corsOrigins.join(','), '--cors-origins')
        : parseCorsOrigins(env.HERALD_CORS_ORIGINS),
    },
    maxConnections: opts.maxConnections ?? parseMaxConnections(env.HERALD_MAX_CONNECTIONS),
    timeouts: { ...HTTP_TIMEOUTS, ...opts.httpTimeouts },
    trustProxy,
    startDispatcher: opts.startDispatcher !== false,
    admin: adminFromEnv(env),
    secretKey: secretKeySource(opts, env),
    metrics: opts.metrics
      ? parseMetricsSettings(opts.metrics.enabled ? '1' : '0', opts.metrics.token, {
          enabled: 'metrics.enabled',
          token: 'metrics.token',
        })
      : metricsFromEnv(env),
    databaseUrl:
      opts.databaseUrl !== undefined ? parseDatabaseUrl(opts.databaseUrl) : databaseUrlFromEnv(env),
    writeWorker: writeWorkerMode(env.HERALD_WRITE_WORKER),
    deliveryThread: deliveryThreadMode(env.HERALD_DELIVERY_THREAD),
    backupsByDefault: opts.backupsByDefault === true,
    webPushEndpoints:
      opts.webPushEndpoints !== undefined
        ? parseWebPushEndpoints(opts.webPushEndpoints, 'webPushEndpoints')
        : parseWebPushEndpoints(env.HERALD_WEB_PUSH_ENDPOINTS),
    authProxy: parseAuthProxyConfig(env, trustProxy),
    oidc: readOidcEnvironment(env),
  };
}

/**
 * HERALD_ADMIN_USER and HERALD_ADMIN_PASSWORD(_FILE), checked by the rules the console's setup
 * applies. Checked here rather than when the administrator is created: that comes after the
 * database and the key were written, and a refused start must leave the data folder as it was.
 */
function adminFromEnv(env: NodeJS.ProcessEnv): HeraldConfig['admin'] {
  const user = env.HERALD_ADMIN_USER;
  const password = readSecretVariable(env, 'HERALD_ADMIN_PASSWORD');
  if (user && password.value !== undefined) {
    const checked = newPasswordSchema.safeParse(password.value);
    if (!checked.success) {
      throw new Error(`${password.name} ${checked.error.issues[0]?.message ?? 'is not allowed'}`);
    }
    const name = user.trim();
    if (name === '' || name.length > USERNAME_MAX_CHARS) {
      throw new Error(`HERALD_ADMIN_USER must be 1 to ${USERNAME_MAX_CHARS} characters`);
    }
  }
  return { user, password: password.value };
}

/** The console's setup takes usernames of at most this many characters (contract/console/auth.ts). */
const USERNAME_MAX_CHARS = 100;

/** The options stand for the variables as a pair: giving either replaces both. */
function secretKeySource(opts: StartServerOptions, env: NodeJS.ProcessEnv): ServerKeySource {
  if (opts.secretKey !== undefined || opts.secretKeyFile !== undefined) {
    return parseServerKeySource(opts.secretKey, opts.secretKeyFile, {
      value: 'secretKey',
      file: 'secretKeyFile',
    });
  }
  return parseServerKeySource(env.HERALD_SECRET_KEY, env.HERALD_SECRET_KEY_FILE);
}

/** HERALD_METRICS, and the token from HERALD_METRICS_TOKEN or HERALD_METRICS_TOKEN_FILE. */
function metricsFromEnv(env: NodeJS.ProcessEnv): MetricsSettings {
  const token = readSecretVariable(env, 'HERALD_METRICS_TOKEN');
  return parseMetricsSettings(env.HERALD_METRICS, token.value, {
    enabled: 'HERALD_METRICS',
    token: token.name,
  });
}

/** HERALD_DATABASE_URL or HERALD_DATABASE_URL_FILE; a bad URL names the one given. */
function databaseUrlFromEnv(env: NodeJS.ProcessEnv): string | null {
  const url = readSecretVariable(env, 'HERALD_DATABASE_URL');
  return parseDatabaseUrl(url.value, url.name);
}
